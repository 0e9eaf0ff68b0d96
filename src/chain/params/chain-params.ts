import { type AcParams, KOMODO_FIRSTFUNGIBLEID, parseAcParams } from './ac-params.js';
import type { ArgValues } from './args.js';
import { assetMagic, assetPort, extraBytes, magicInt32, messageStart } from './magic.js';
import { blockSubsidy, currentSupply, maxMoney, stakedChainKind } from './subsidy.js';
import {
  type Activation,
  type TxFormat,
  DEFAULT_TX_EXPIRY_DELTA,
  contextualTxFormat,
  currentEpochBranchId,
  maxBlockSize,
  maxTxSize,
  saplingAutoActivation,
  saplingAutoActivationApplies,
  upgradeActive,
} from './upgrades.js';

/** Coinbase maturity of KMD and of asset chains that do not lower it (chainparams.h:254). */
export const COINBASE_MATURITY = 100;
/** OP_RETURN relay limit on asset chains, -datacarriersize's default (MAX_OP_RETURN_RELAY_AC). */
export const MAX_OP_RETURN_RELAY_AC = 208;
/** Regtest's target spacing when -ac_blocktime is left at 60 (chainparams.cpp:458). */
export const REGTEST_POW_TARGET_SPACING = 150;

export interface EquihashParams {
  readonly n: number;
  readonly k: number;
  /** BLAKE2b personalisation prefix: "ZcashPoW", or "NandKPoW" with -ac_nk (equihash.cpp:84-87). */
  readonly personalization: 'ZcashPoW' | 'NandKPoW';
}

/**
 * Eval codes komodod disables by name after reading the flags (komodo_utils.cpp:1646-1708): a chain
 * listed here runs only the codes given, whatever -ac_ccenable says.
 */
const CHAIN_CC_OVERRIDES: ReadonlyMap<string, readonly number[]> = new Map([
  ['AXO', []],
  ['CCL', [0xf2, 0xea]],
  ['COQUI', [0xe6, 0xeb, 0xec, 0xe3, 0xf2]],
  ['DION', []],
  ['EQL', []],
  ['ILN', []],
  ['OUR', []],
  ['ZEXO', []],
  ['SEC', [0xe3, 0xf2, 0xec]],
  ['KMDICE', [0xe4, 0xe6, 0xec]],
]);

export interface ChainParamsOptions {
  /** -regtest: regtest network rules (Equihash not checked, mining on demand). */
  readonly regtest?: boolean;
  /** -port: replaces the derived p2p port when non-zero. */
  readonly port?: number;
}

/**
 * Everything consensus needs to know about one asset chain, derived from its -ac_* flags: identity
 * (magic, message start, ports), rewards, maturity, network upgrades, limits and timing.
 */
export class ChainParams {
  readonly ac: AcParams;
  readonly name: string;
  readonly regtest: boolean;
  /** The extra-parameters buffer hashed into the magic (empty when none). */
  readonly extra: Uint8Array;
  /** ASSETCHAINS_MAGIC as uint32. */
  readonly magic: number;
  /** The same 32 bits signed, as getinfo and komodod's tests print it. */
  readonly magicInt32: number;
  /** The 4 network message-start bytes (the magic little-endian). */
  readonly messageStart: Uint8Array;
  /** The p2p port: -port when given, else derived from the magic. */
  readonly p2pPort: number;
  /** The port derived from the magic alone. */
  readonly defaultP2pPort: number;
  /** The default RPC port: p2p + 1 (what a freshly generated conf holds). */
  readonly rpcPort: number;
  /** Overwinter/Sapling activation heights in force. */
  readonly activation: Activation;
  /** MAX_MONEY: the cap on any amount and on the outputs of a transaction. */
  readonly maxMoney: bigint;
  readonly coinbaseMaturity: number;
  readonly equihash: EquihashParams;
  /** False on regtest: komodod does not check Equihash solutions there (pow.cpp:564-565). */
  readonly checkEquihash: boolean;
  /** nPowTargetSpacing in seconds. */
  readonly powTargetSpacing: number;
  /** nMaxFutureBlockTime: how far past the node's clock a block's time may be (7 × ac_blocktime). */
  readonly maxFutureBlockTime: number;
  /** ASSETCHAINS_CCDISABLES: 1 for each eval code disabled. */
  readonly ccDisabled: Uint8Array;

  private constructor(ac: AcParams, regtest: boolean, port: number, activation: Activation | null) {
    this.ac = ac;
    this.name = ac.name;
    this.regtest = regtest;
    this.extra = extraBytes(ac);
    this.magic = assetMagic(ac.name, ac.supply, this.extra);
    this.magicInt32 = magicInt32(this.magic);
    this.messageStart = messageStart(this.magic);
    this.defaultP2pPort = assetPort(this.magic, this.extra.length);
    this.p2pPort = port !== 0 ? port : this.defaultP2pPort;
    this.rpcPort = this.p2pPort + 1;
    this.activation = activation ?? { overwinter: ac.overwinter, sapling: ac.sapling };
    this.maxMoney = maxMoney(ac, this.magic);
    // komodo_utils.cpp:1540-1548: -ac_cbmaturity, else 1 for single-era and STAKED chains, else the
    // network's (100 on main, 1 on regtest).
    this.coinbaseMaturity =
      ac.cbMaturity !== 0 ? ac.cbMaturity : ac.eras === 1 || stakedChainKind(ac.name) !== 0 ? 1 : regtest ? 1 : COINBASE_MATURITY;
    this.equihash = ac.nk
      ? { n: ac.nk[0], k: ac.nk[1], personalization: 'NandKPoW' }
      : regtest
        ? { n: 48, k: 5, personalization: 'ZcashPoW' }
        : { n: 200, k: 9, personalization: 'ZcashPoW' };
    this.checkEquihash = !regtest;
    this.powTargetSpacing = regtest && ac.blocktime === 60 ? REGTEST_POW_TARGET_SPACING : ac.blocktime;
    this.maxFutureBlockTime = 7 * ac.blocktime;
    this.ccDisabled = new Uint8Array(256);
    if (ac.ccEnable.length > 0) {
      // Every code disabled, then the listed ones enabled; unlike the magic's bitmap, code 0 stays
      // disabled here (komodo_utils.cpp:1231-1241).
      this.ccDisabled.fill(1);
      for (const c of ac.ccEnable) this.ccDisabled[c] = 0;
    }
    const override = CHAIN_CC_OVERRIDES.get(ac.name);
    if (override) {
      this.ccDisabled.fill(1);
      for (const c of override) this.ccDisabled[c] = 0;
    }
  }

  /** The parameters of the chain the -ac_* flags describe. */
  static fromArgs(args: ArgValues, opts: ChainParamsOptions = {}): ChainParams {
    return new ChainParams(parseAcParams(args), opts.regtest ?? false, opts.port ?? 0, null);
  }

  static fromAcParams(ac: AcParams, opts: ChainParamsOptions = {}): ChainParams {
    return new ChainParams(ac, opts.regtest ?? false, opts.port ?? 0, null);
  }

  /** komodo_setactivation: a copy with Overwinter and Sapling both activating at `height`. */
  withSaplingActivation(height: number): ChainParams {
    return new ChainParams(this.ac, this.regtest, this.p2pPort === this.defaultP2pPort ? 0 : this.p2pPort, {
      overwinter: height,
      sapling: height,
    });
  }

  /**
   * For a new tip: the params with komodod's automatic Sapling activation applied when it decides
   * one (see saplingAutoActivation), else this object unchanged.
   */
  afterTip(tipHeight: number, tipTime: number, blockTime: (height: number) => number): ChainParams {
    if (!saplingAutoActivationApplies(this.activation.sapling, tipTime)) return this;
    const h = saplingAutoActivation(tipHeight, blockTime);
    return h !== 0 ? this.withSaplingActivation(h) : this;
  }

  /** ac_cc in force (after -ac_ccactivate forcing). */
  get cc(): number {
    return this.ac.ccActive;
  }

  /** CC is on for this chain (ac_cc non-zero). */
  get ccEnabled(): boolean {
    return this.ac.ccActive !== 0;
  }

  /** ac_cc ≥ 100: a fungible cross-chain cluster (burn/import RPCs require it). */
  get ccFungible(): boolean {
    return this.ac.ccActive >= KOMODO_FIRSTFUNGIBLEID;
  }

  /** CC validation runs at this height: CC on and -ac_ccactivate reached (CCutils.cpp:867). */
  ccActiveAt(height: number): boolean {
    return this.ccEnabled && height >= this.ac.ccActivate;
  }

  /**
   * Whether an eval code may be dispatched at `height` (eval.cpp:82-91): not disabled, or disabled
   * but switched on by -ac_ccactivateht at or below a non-zero height.
   */
  evalCodeEnabled(code: number, height: number): boolean {
    if (!this.ccDisabled[code & 0xff]) return true;
    const at = this.ac.ccActivateHeights.get(code & 0xff) ?? 0;
    return at !== 0 && height !== 0 && at <= height;
  }

  /** The eval codes not disabled (before -ac_ccactivateht heights). */
  get enabledEvalCodes(): number[] {
    const out: number[] = [];
    for (let i = 0; i < 256; i++) if (!this.ccDisabled[i]) out.push(i);
    return out;
  }

  /** -addressindex/-spentindex default on when ac_cc or ac_ccactivate is set (main.h:127-128). */
  get indexesByDefault(): boolean {
    return this.ac.cc !== 0 || this.ac.ccActivate !== 0;
  }

  /** The block-1 premine: what block 1's coinbase must pay, fees aside. */
  get premine(): bigint {
    return blockSubsidy(this.ac, this.magic, 1);
  }

  /** New coins a block at `height` may pay (komodo_ac_block_subsidy). */
  blockSubsidy(height: number): bigint {
    return blockSubsidy(this.ac, this.magic, height);
  }

  /** komodo_current_supply(height). */
  currentSupply(height: number): bigint {
    return currentSupply(this.ac, this.magic, height);
  }

  isOverwinterActive(height: number): boolean {
    return upgradeActive(height, this.activation.overwinter);
  }

  isSaplingActive(height: number): boolean {
    return upgradeActive(height, this.activation.sapling);
  }

  currentEpochBranchId(height: number): number {
    return currentEpochBranchId(height, this.activation);
  }

  /** The version fields of a transaction built for a block at `height` (createrawtransaction's rule). */
  txFormat(height: number, expiryDelta = DEFAULT_TX_EXPIRY_DELTA): TxFormat {
    return contextualTxFormat(height, this.activation, expiryDelta);
  }

  maxBlockSize(height: number): number {
    return maxBlockSize(height, this.activation);
  }

  maxTxSize(height: number): number {
    return maxTxSize(height, this.activation);
  }

  /** Coinbase outputs created at `coinHeight` may be spent in a block at `spendHeight` (main.cpp:2743). */
  coinbaseSpendable(coinHeight: number, spendHeight: number): boolean {
    return spendHeight - coinHeight >= this.coinbaseMaturity;
  }
}

/** The developer chain acnoded runs when no -ac_name is given (design.md "The default dev chain"). */
export const DEV_CHAIN_NAME = 'ACDEV';
export const DEV_CHAIN_ARGV: readonly string[] = [
  '-regtest',
  '-ac_name=ACDEV',
  '-ac_supply=10000000',
  '-ac_reward=100000000',
  '-ac_cc=2',
  '-ac_sapling=1',
  '-ac_blocktime=5',
  '-gen',
];

/** The dev chain's -ac_* flags as ArgValues. */
export const DEV_CHAIN_AC_ARGS: ReadonlyMap<string, readonly string[]> = new Map(
  DEV_CHAIN_ARGV.filter((a) => a.startsWith('-ac_')).map((a) => {
    const [k, v] = a.slice(1).split('=') as [string, string];
    return [k, [v]];
  }),
);

/** The dev chain's parameters. */
export function devChainParams(opts: { port?: number } = {}): ChainParams {
  return ChainParams.fromArgs(DEV_CHAIN_AC_ARGS, { regtest: true, port: opts.port ?? 0 });
}
