/** Asset-chain parameters derived from -ac_* flags: see chain-params.ts for the combined object. */
export { ParamsError } from './errors.js';
export { crc32 } from './crc32.js';
export { type ArgValues, argValue, argValues, parseIntArg, intArg, splitList } from './args.js';
export {
  type AcParams,
  AC_FLAGS,
  ASSETCHAINS_MAX_ERAS,
  ASSETCHAINS_TIMELOCKOFF,
  EQUIHASH_NK_ALLOWED,
  ERA_SLOTS,
  KOMODO_ASSETCHAIN_MAXLEN,
  KOMODO_FIRSTFUNGIBLEID,
  MAX_AC_SUPPLY,
  checkChainName,
  parseAcParams,
} from './ac-params.js';
export { KMD_MAGIC, KMD_P2P_PORT, assetMagic, assetPort, ccDisableBits, extraBytes, hasExtra, magicInt32, messageStart } from './magic.js';
export {
  ASSETCHAINS_GENESISTXVAL,
  KOMODO_MAXNVALUE,
  MAX_MONEY_HEIGHT,
  blockSubsidy,
  currentSupply,
  magicExtra,
  maxMoney,
  stakedChainKind,
} from './subsidy.js';
export {
  type Activation,
  type TxFormat,
  DEFAULT_TX_EXPIRY_DELTA,
  KOMODO_SAPLING_ACTIVATION,
  MAX_BLOCK_SIZE_BEFORE_SAPLING,
  MAX_BLOCK_SIZE_SAPLING,
  NO_ACTIVATION_HEIGHT,
  SAPLING_AUTO_ACTIVATION_DELAY,
  contextualTxFormat,
  currentEpochBranchId,
  maxBlockSize,
  maxTxSize,
  saplingAutoActivation,
  saplingAutoActivationApplies,
  upgradeActive,
} from './upgrades.js';
export {
  type ChainParamsOptions,
  type EquihashParams,
  COINBASE_MATURITY,
  ChainParams,
  DEV_CHAIN_AC_ARGS,
  DEV_CHAIN_ARGV,
  DEV_CHAIN_NAME,
  MAX_OP_RETURN_RELAY_AC,
  REGTEST_POW_TARGET_SPACING,
  devChainParams,
} from './chain-params.js';
