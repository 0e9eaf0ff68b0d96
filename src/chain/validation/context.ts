import type { Activation } from '../params/upgrades.js';
import { maxBlockSize, maxTxSize, upgradeActive } from '../params/upgrades.js';
import type { ChainParams } from '../params/chain-params.js';
import { MAX_OP_RETURN_RELAY_AC } from '../params/chain-params.js';
import type { EquihashParams } from '../block/equihash.js';
import { POW_LIMIT } from '../block/pow.js';

/** MAX_BLOCK_SIGOPS on asset chains (komodo_args raises it from 20000, komodo_utils.cpp:1179). */
export const MAX_BLOCK_SIGOPS_AC = 60_000;
/**
 * MAX_STANDARD_TX_SIGOPS = MAX_BLOCK_SIGOPS/5 (main.h:84). It is a header constant initialised during
 * static initialisation, before komodo_args raises MAX_BLOCK_SIGOPS, so it reads 20000/5 on every chain.
 */
export const MAX_STANDARD_TX_SIGOPS = 4_000;
/** Chains on which a coinbase may pay one satoshi more than its limit (KOMODO_EXTRASATOSHI, komodo_utils.cpp:1680-1686). */
const EXTRASATOSHI_CHAINS = new Set(['SUPERNET', 'DEX', 'COQUI', 'PIRATE', 'KMDICE']);

/**
 * The chain facts the validation rules read, derived from the chain parameters. Build it with
 * `validationContext(params)`, and again whenever the params change (komodod's automatic Sapling
 * activation: ChainParams.afterTip).
 */
export interface ValidationContext {
  /** MAX_MONEY: the cap on every amount and on the sum of a transaction's outputs. */
  readonly maxMoney: bigint;
  readonly activation: Activation;
  readonly coinbaseMaturity: number;
  /** -ac_cc ≠ 0: CC outputs are standard, CC scripts are evaluated, and CheckBlock's CC early exit applies. */
  readonly ccEnabled: boolean;
  /** -ac_public: no shielded parts allowed. */
  readonly acPublic: boolean;
  /** -ac_txpow (bit 1: non-coinbase txids, bit 2: coinbase txids must start and end with a zero byte). */
  readonly txpow: number;
  /** ASSETCHAINS_PRIVATE: changes the dos score of `tx-overwinter-active`. */
  readonly acPrivate: boolean;
  readonly maxBlockSigops: number;
  readonly maxStandardTxSigops: number;
  /** fRequireStandard: false on regtest, where the mempool skips IsStandardTx and AreInputsStandard. */
  readonly requireStandard: boolean;
  /** The -datacarriersize default (208 on asset chains). */
  readonly defaultDataCarrierSize: number;
  readonly equihash: EquihashParams;
  /** False on regtest: CheckEquihashSolution returns true there. */
  readonly checkEquihash: boolean;
  readonly powLimit: bigint;
  /** nMaxFutureBlockTime (ContextualCheckBlockHeader's time-too-new). */
  readonly maxFutureBlockTime: number;
  /** KOMODO_EXTRASATOSHI as a bigint (0 or 1). */
  readonly extraSatoshi: bigint;
  /** GetBlockSubsidy(height): komodo_ac_block_subsidy. */
  blockSubsidy(height: number): bigint;
  /** MayAcceptCryptoCondition for the standardness solver (the cc module supplies it; absent = all accepted). */
  readonly isSupportedCondition?: (condition: Uint8Array) => boolean;
}

export function isOverwinterActive(ctx: ValidationContext, height: number): boolean {
  return upgradeActive(height, ctx.activation.overwinter);
}

export function isSaplingActive(ctx: ValidationContext, height: number): boolean {
  return upgradeActive(height, ctx.activation.sapling);
}

export function ctxMaxBlockSize(ctx: ValidationContext, height: number): number {
  return maxBlockSize(height, ctx.activation);
}

export function ctxMaxTxSize(ctx: ValidationContext, height: number): number {
  return maxTxSize(height, ctx.activation);
}

export interface ValidationContextOptions {
  isSupportedCondition?: (condition: Uint8Array) => boolean;
}

/** Contexts already derived, per params object (params never change in place: afterTip makes new ones). */
const derived = new WeakMap<ChainParams, ValidationContext>();

/** The ValidationContext of an asset chain (the mempool asks one per transaction: derived once per params). */
export function validationContext(params: ChainParams, opts: ValidationContextOptions = {}): ValidationContext {
  if (opts.isSupportedCondition) return deriveContext(params, opts);
  let ctx = derived.get(params);
  if (!ctx) derived.set(params, (ctx = deriveContext(params, opts)));
  return ctx;
}

function deriveContext(params: ChainParams, opts: ValidationContextOptions): ValidationContext {
  const ac = params.ac;
  return {
    maxMoney: params.maxMoney,
    activation: params.activation,
    coinbaseMaturity: params.coinbaseMaturity,
    ccEnabled: params.ccEnabled,
    acPublic: ac.public !== 0,
    txpow: ac.txpow,
    acPrivate: ac.private !== 0,
    maxBlockSigops: MAX_BLOCK_SIGOPS_AC,
    maxStandardTxSigops: MAX_STANDARD_TX_SIGOPS,
    requireStandard: !params.regtest,
    defaultDataCarrierSize: MAX_OP_RETURN_RELAY_AC,
    equihash: { n: params.equihash.n, k: params.equihash.k, acNk: params.equihash.personalization === 'NandKPoW' },
    checkEquihash: params.checkEquihash,
    powLimit: POW_LIMIT,
    maxFutureBlockTime: params.maxFutureBlockTime,
    extraSatoshi: EXTRASATOSHI_CHAINS.has(params.name) ? 1n : 0n,
    blockSubsidy: (height: number) => params.blockSubsidy(height),
    ...(opts.isSupportedCondition ? { isSupportedCondition: opts.isSupportedCondition } : {}),
  };
}

/**
 * The -ac_* options whose consensus rules these validators do not implement (each named with the flag).
 * A node should refuse to run such a chain rather than accept blocks komodod would reject.
 */
export function unsupportedValidationOptions(params: ChainParams): string[] {
  const ac = params.ac;
  const out: string[] = [];
  if (ac.staked !== 0) out.push('-ac_staked (proof of stake)');
  if (ac.timelockGte !== 0xffff_ffff_ffff_ffffn) out.push('-ac_timelockgte (coinbase time locks)');
  if (ac.commission !== 0n || ac.foundersReward !== 0n) out.push('-ac_perc/-ac_founders (coinbase commission)');
  if (ac.notaryPay[0] !== 0n) out.push('-ac_notarypay (notary payments)');
  if (ac.private !== 0) out.push('-ac_private (notary-address rules)');
  if (ac.adaptivePow !== 0) out.push('-ac_adaptivepow (difficulty and time rules)');
  return out;
}
