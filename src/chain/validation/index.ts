/** komodod's transaction and block validation rules as pure functions: the public surface of src/chain/validation. */
export {
  REJECT_MALFORMED,
  REJECT_INVALID,
  REJECT_OBSOLETE,
  REJECT_DUPLICATE,
  REJECT_NONSTANDARD,
  REJECT_DUST,
  REJECT_INSUFFICIENTFEE,
  REJECT_CHECKPOINT,
  ValidationError,
  FutureBlockError,
  MissingInputsError,
  type ValidationErrorOptions,
} from './errors.js';
export type { Coin, CoinView, ConnectView } from './coin.js';
export {
  type ValidationContext,
  type ValidationContextOptions,
  MAX_BLOCK_SIGOPS_AC,
  MAX_STANDARD_TX_SIGOPS,
  validationContext,
  unsupportedValidationOptions,
  isOverwinterActive,
  isSaplingActive,
} from './context.js';
export { COIN_IMPORT_PREVOUT_N, isCoinImport, isMint, valueOut, shieldedValueIn, txSize } from './tx-values.js';
export { scriptSigOpCount, p2shSigOpCount, legacySigOpCount, p2shInputsSigOpCount } from './sigops.js';
export { IGUANA_MAXSCRIPTSIZE } from '../consensus/script.js';
export { KOMODO_SAPLING_DEADLINE, STAKED_DECEMBER_HARDFORK_TIMESTAMP } from '../consensus/upgrades.js';
export {
  type CheckTransactionOptions,
  type ContextualCheckOptions,
  checkTransaction,
  contextualCheckTransaction,
  isFinalTx,
  isExpiredTx,
  checkTxInputs,
  checkInputScripts,
  SignatureCache,
  type InputScriptOptions,
} from './transaction.js';
export {
  DEFAULT_MIN_RELAY_TX_FEE,
  MAX_STANDARD_SCRIPTSIG_SIZE,
  MAX_P2SH_SIGOPS,
  MAX_STANDARD_MULTISIG_KEYS,
  type StandardOptions,
  feeForSize,
  minRelayFee,
  dustThreshold,
  isDust,
  absurdFeeLimit,
  checkAbsurdFee,
  checkStandardSigOps,
  checkValueOutNotTooBig,
  isStandardScript,
  isStandardTx,
  areInputsStandard,
} from './policy.js';
export { COINBASE_MIN_EXTRA_OUTPUT, bip34Prefix, checkCoinbaseHeight, checkCoinbaseDeposit, checkCoinbaseValue } from './coinbase.js';
export {
  MAX_FUTURE_HEADER_SECONDS,
  FUTURE_BLOCK_RETRY_SECONDS,
  maxBlockTimeAhead,
  type HeaderCheckOptions,
  type BlockCheckOptions,
  type PrevBlockInfo,
  type ContextualBlockOptions,
  checkEquihashSolution,
  checkBlockHeader,
  checkBlock,
  contextualCheckBlockHeader,
  contextualCheckBlock,
} from './block.js';
export { ScriptExecutionCache } from './script-cache.js';
