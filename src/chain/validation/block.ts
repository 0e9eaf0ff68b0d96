import type { Block } from '../block/block.js';
import type { BlockHeader } from '../block/header.js';
import { MIN_BLOCK_VERSION } from '../block/header.js';
import { verifyEquihash } from '../block/equihash.js';
import { checkProofOfWork } from '../block/pow.js';
import { buildMerkleTree } from '../block/merkle.js';
import { equalBytes } from '../encoding/hex.js';
import { type ValidationContext, ctxMaxBlockSize } from './context.js';
import { FutureBlockError, REJECT_INVALID, REJECT_OBSOLETE, ValidationError, reject } from './errors.js';
import { checkCoinbaseDeposit, checkCoinbaseHeight } from './coinbase.js';
import { legacySigOpCount } from './sigops.js';
import { checkTransaction, contextualCheckTransaction, isFinalTx } from './transaction.js';

/**
 * Block rules of komodod's main.cpp at 0adeeab: CheckBlockHeader, CheckBlock, ContextualCheckBlockHeader
 * and ContextualCheckBlock, in komodod's order. Left out, being KMD-only (p2p-blocks.md §8): the notary
 * "easy-mined" difficulty and its merkle opret, the 235300-236000 bad-diffbits window, banned txids and
 * interest. Left out, being options acnode does not run: ac_adaptivepow's time rules and ac_staked PoS.
 */

/** CheckBlockHeader rejects a block this far (seconds) past the node's clock. */
export const MAX_FUTURE_HEADER_SECONDS = 60;
/** ...and retries it later when it is less than this far ahead. */
export const FUTURE_BLOCK_RETRY_SECONDS = 300;

/**
 * How far past the node's clock a block's time may be and the block still connect: the tighter of
 * CheckBlockHeader's 60 s and ContextualCheckBlockHeader's nMaxFutureBlockTime (7 × ac_blocktime),
 * so 60 s once ac_blocktime is 9 or more.
 */
export function maxBlockTimeAhead(maxFutureBlockTime: number): number {
  return Math.min(MAX_FUTURE_HEADER_SECONDS, maxFutureBlockTime);
}
/** The KMD genesis hash (display): with -ac_nk its (200,9) solution is accepted by hash (pow.cpp:558). */
const KMD_GENESIS_HASH = '027e3758c3a65b12aa1046462b486d0a63bfa1beae327897f56c5cfb7daaae71';

/** CheckEquihashSolution: always true on regtest. */
export function checkEquihashSolution(header: BlockHeader, ctx: ValidationContext): boolean {
  if (!ctx.checkEquihash) return true;
  if (ctx.equihash.acNk && header.hashHex() === KMD_GENESIS_HASH) return true;
  return verifyEquihash(ctx.equihash, header.equihashInput(), header.solution);
}

export interface HeaderCheckOptions {
  /** The block's height (0 for genesis): version 4 is required above 0. */
  height?: number;
  /** The node's clock (unix seconds); omitted, the future-time rule is not checked. */
  now?: number;
  /** Check the Equihash solution (fCheckPOW). */
  checkPow?: boolean;
}

function futureCheck(header: BlockHeader, now: number | undefined): FutureBlockError | null {
  if (now === undefined || header.time <= now + MAX_FUTURE_HEADER_SECONDS) return null;
  return new FutureBlockError(
    header.time < now + FUTURE_BLOCK_RETRY_SECONDS,
    `block timestamp ${header.time} is more than ${MAX_FUTURE_HEADER_SECONDS} s past ${now}`,
  );
}

/** CheckBlockHeader: not too far in the future, version ≥ 4 above genesis, a valid Equihash solution. */
export function checkBlockHeader(header: BlockHeader, ctx: ValidationContext, opts: HeaderCheckOptions = {}): void {
  const future = futureCheck(header, opts.now);
  if (future) throw future;
  checkHeaderRest(header, ctx, opts);
}

function checkHeaderRest(header: BlockHeader, ctx: ValidationContext, opts: HeaderCheckOptions): void {
  if ((opts.height ?? 1) > 0 && header.version < MIN_BLOCK_VERSION) reject(REJECT_INVALID, 'version-too-low', 100);
  if (opts.checkPow && !checkEquihashSolution(header, ctx)) reject(REJECT_INVALID, 'invalid-solution', 100);
}

export interface BlockCheckOptions {
  /** fCheckPOW: Equihash, hash ≤ target, komodo_check_deposit; and, on CC chains, the transaction checks. */
  checkPow: boolean;
  /** fCheckMerkleRoot. */
  checkMerkle: boolean;
  /** The block's height. */
  height: number;
  /** The node's clock for CheckBlockHeader's future rule (omitted: not checked). */
  now?: number;
  /** The previous block's time (CheckTransaction's tiptime); defaults to this block's time, as komodod without pindex. */
  tipTime?: number;
  /** The serialised size, transaction hashes and sizes when the caller already has them (spares re-serialising). */
  size?: number;
  txHashes?: readonly Uint8Array[];
  txSizes?: readonly number[];
}

/**
 * CheckBlock: header, proof of work, merkle root (mutation → bad-txns-duplicate), size and count,
 * exactly one coinbase first, then every transaction's checkTransaction, legacy sigops, and
 * komodo_check_deposit. As in komodod, a CC chain (ac_cc ≠ 0) checked without fCheckPOW stops before
 * the transaction checks. A header 60-300 s in the future still gets every other check, then fails as
 * a FutureBlockError with retryLater, as komodod's futureblock flag does.
 */
export function checkBlock(block: Block, ctx: ValidationContext & BlockCheckOptions): void {
  const { height } = ctx;
  const header = block.header;
  const future = futureCheck(header, ctx.now);
  if (future && !future.retryLater) throw future;
  if (!future) checkHeaderRest(header, ctx, { height, checkPow: ctx.checkPow });

  if (ctx.checkPow && !checkProofOfWork(header.hash(), header.bits, ctx.powLimit))
    reject(REJECT_INVALID, 'high-hash', 50);
  // komodo_checkPOW's failed-slow_checkPOW repeats these two checks for a plain asset chain: unreachable here.

  if (ctx.checkMerkle) {
    const { root, mutated } = ctx.txHashes ? buildMerkleTree(ctx.txHashes) : block.merkleTree();
    if (!equalBytes(root, header.merkleRoot)) reject(REJECT_INVALID, 'bad-txnmrklroot', 100, { corruptionPossible: true });
    if (mutated) reject(REJECT_INVALID, 'bad-txns-duplicate', 100, { corruptionPossible: true });
  }

  const maxSize = ctxMaxBlockSize(ctx, height);
  if (block.txs.length === 0 || block.txs.length > maxSize || (ctx.size ?? block.toRaw().length) > maxSize)
    reject(REJECT_INVALID, 'bad-blk-length', 100);
  if (!block.txs[0]!.isCoinbase()) reject(REJECT_INVALID, 'bad-cb-missing', 100);
  for (let i = 1; i < block.txs.length; i++) if (block.txs[i]!.isCoinbase()) reject(REJECT_INVALID, 'bad-cb-multiple', 100);

  if (ctx.ccEnabled && !ctx.checkPow) {
    if (future) throw future;
    return;
  }

  const tipTime = ctx.tipTime ?? header.time;
  // Indexed loops: this runs once per block, unoptimised, where forEach and for…of allocate.
  const txs = block.txs;
  for (let i = 0; i < txs.length; i++) checkTransaction(txs[i]!, ctx, { tipTime, size: ctx.txSizes?.[i] });

  let sigops = 0;
  for (let i = 0; i < txs.length; i++) sigops += legacySigOpCount(txs[i]!);
  if (sigops > ctx.maxBlockSigops) reject(REJECT_INVALID, 'bad-blk-sigops', 100, { corruptionPossible: true });

  if (ctx.checkPow) checkCoinbaseDeposit(block, height, ctx);
  if (future) throw future;
}

/** What ContextualCheckBlockHeader needs to know about the chain the header extends. */
export interface PrevBlockInfo {
  /** Height of the previous block. */
  height: number;
  /** Its median time past. */
  mtp: number;
  /** nBits the new block must carry (nextWorkRequired over the previous blocks). */
  nextBits: number;
  /**
   * The active chain, for komodod's checkpoint rule that block 1 cannot be replaced once the chain is
   * longer than 1: the tip height and the hash (internal order) of the active block at height 1.
   */
  activeChain?: { tipHeight: number; hashAtHeight1?: Uint8Array };
}

/**
 * ContextualCheckBlockHeader (the genesis block is not checked): exact nBits, time after the previous
 * median time past and at most nMaxFutureBlockTime past `now`, block 1 not replaced, version ≥ 4.
 * komodo_checkpoint's notarisation lock is absent (no notaries on a private asset chain).
 */
export function contextualCheckBlockHeader(header: BlockHeader, prev: PrevBlockInfo, ctx: ValidationContext, now: number): void {
  const height = prev.height + 1;
  if (header.bits >>> 0 !== prev.nextBits >>> 0) reject(REJECT_INVALID, 'bad-diffbits', 100);
  if (header.time <= prev.mtp) reject(REJECT_INVALID, 'time-too-old', 0);
  if (header.time > now + ctx.maxFutureBlockTime) reject(REJECT_INVALID, 'time-too-new', 0);
  const active = prev.activeChain;
  if (height === 1 && active && active.tipHeight > 1) {
    if (!active.hashAtHeight1 || !equalBytes(active.hashAtHeight1, header.hash()))
      throw new ValidationError(0, '', 1, { debug: 'ContextualCheckBlockHeader: trying to change height 1 forbidden' });
  }
  if (header.version < 4) reject(REJECT_OBSOLETE, 'bad-version', 0);
}

export interface ContextualBlockOptions {
  initialBlockDownload?: boolean;
}

/**
 * ContextualCheckBlock: each transaction's contextual rules at `height` (DoS 100) and finality at the
 * block's own time (`bad-txns-nonfinal`), then BIP34: the coinbase scriptSig starts with
 * `CScript() << height` (heights 1-16 as OP_1..OP_16, others as a minimal CScriptNum push).
 */
export function contextualCheckBlock(block: Block, height: number, ctx: ValidationContext, opts: ContextualBlockOptions = {}): void {
  // One options object for the block, and an indexed loop (checkBlock says why).
  const txOpts = { dosLevel: 100, ...(opts.initialBlockDownload !== undefined ? { initialBlockDownload: opts.initialBlockDownload } : {}) };
  for (let i = 0; i < block.txs.length; i++) {
    const tx = block.txs[i]!;
    contextualCheckTransaction(tx, height, ctx, txOpts);
    if (!isFinalTx(tx, height, block.header.time)) reject(REJECT_INVALID, 'bad-txns-nonfinal', 10);
  }
  checkCoinbaseHeight(block, height);
}
