import type { ChainParams } from '../../chain/params/chain-params.js';
import { kmdGenesisBlock, regtestGenesisBlock } from '../../chain/block/genesis.js';
import { assetChainPowParams, nextWorkRequired } from '../../chain/block/pow.js';
import { fromHexReversed, equalBytes } from '../../chain/encoding/hex.js';
import { SCRIPT_VERIFY_CHECKLOCKTIMEVERIFY, SCRIPT_VERIFY_P2SH } from '../../chain/script/flags.js';
import type { CryptoConditionChecker } from '../../chain/script/checker.js';
import type { Transaction } from '../../chain/tx/transaction.js';
import {
  MissingInputsError,
  ValidationError,
  checkBlock,
  checkCoinbaseValue,
  checkInputScripts,
  checkTxInputs,
  contextualCheckBlock,
  contextualCheckBlockHeader,
  legacySigOpCount,
  p2shInputsSigOpCount,
  validationContext,
  type SignatureCache,
  type ScriptExecutionCache,
} from '../../chain/validation/index.js';
import type { ChainRules } from './rules.js';
import { forEachInBlockOrder, type VerifyPool } from '../verify/pool.js';
import type { TransactionSignatureChecker } from '../../chain/script/checker.js';
import { toHexReversed } from '../../chain/encoding/hex.js';
import { sha256d } from '../../chain/crypto/hash.js';
import { dispatchEval, invalid, makeCCChecker, type EvalRegistry, type EvalResult } from '../../chain/cc/index.js';
import { registerTokensValidator, type TokensEvalContext } from '../../chain/tokens/index.js';
import { registerAssetsValidator } from '../../chain/assets/index.js';

/** Transactions a CC validator may read: the chain's, plus (block) the earlier ones of the block or (mempool) the mempool's. */
export interface CCTxLookup {
  tx(txid: string): Transaction | undefined;
}

type EvalContext = TokensEvalContext & { cache: Map<Transaction, EvalResult>; assetsCache: Map<Transaction, EvalResult> };

/**
 * The CC checker komodod's ServerTransactionSignatureChecker is: crypto-conditions verified, then every
 * eval node dispatched (Eval::Dispatch) to its module's validator. Registered modules: Tokens (0xf2).
 * An eval code with no validator is invalid ("validation not supported for eval code"), as komodod's
 * ProcessCC says for a module without one; a code -ac_ccenables left out is refused first, as
 * Eval::Dispatch does. The validators read transactions through `lookup` (synchronous: the caller
 * holds them), and a transaction's Tokens verdict is computed once however many token inputs it has.
 */
export function ccEvalChecker(params: () => ChainParams): (lookup: CCTxLookup, height: number) => CryptoConditionChecker {
  const registry: EvalRegistry<EvalContext> = registerAssetsValidator(registerTokensValidator(new Map()));
  return (lookup, height) => {
    const cache = new Map<Transaction, EvalResult>();
    const assetsCache = new Map<Transaction, EvalResult>();
    const tokensLookup = { getTransaction: (txid: Uint8Array) => lookup.tx(toHexReversed(txid)) };
    const disabled = params().ccDisabled;
    return makeCCChecker<TransactionSignatureChecker>((checker) => {
      const dispatch = dispatchEval(registry, { tx: checker.tx, height, lookup: tokensLookup, cache, assetsCache });
      return (node) =>
        node.code.length > 0 && disabled[node.code[0]!] ? invalid('disabled-code, -ac_ccenables didnt include this ecode') : dispatch(node);
    });
  };
}

/** Consensus script flags for blocks: P2SH and CHECKLOCKTIMEVERIFY; strict DER is always on (main.cpp:3414-3416). */
export const BLOCK_SCRIPT_FLAGS = SCRIPT_VERIFY_P2SH | SCRIPT_VERIFY_CHECKLOCKTIMEVERIFY;

/** The root of the empty Sapling note commitment tree (display hex), which every block carries while no Sapling output exists. */
export const EMPTY_SAPLING_ROOT = fromHexReversed('3e49b5f954aa9d3545bc6c37744661eea48d7c34e3000d82b7f0010c30f4c2fb');

export interface ConsensusOptions {
  /** The chain parameters in force (they change when Sapling auto-activates). */
  params: () => ChainParams;
  sigCache?: SignatureCache;
  /** Transactions whose scripts the mempool already verified (skipped at block connection). */
  scriptCache?: ScriptExecutionCache;
  /** Worker threads for the script checks of a block (-par); absent or not running, they run here, serially. */
  verifyPool?: VerifyPool;
  /** The CC checker with eval dispatch, given how to look up previous transactions. */
  ccChecker?: (lookup: { tx(txid: string): Transaction | undefined }, height: number) => CryptoConditionChecker | undefined;
  /** GetAdjustedTime in seconds (the node's clock, which setmocktime moves); the wall clock if absent. */
  now?: () => number;
}

/** komodod's block rules bound to a chain's parameters: what the chain store applies to each block. */
export function consensusRules(opts: ConsensusOptions): ChainRules {
  const genesisParams = opts.params();
  return {
    genesis: genesisParams.regtest ? regtestGenesisBlock() : kmdGenesisBlock(),

    nextBits(ancestors) {
      const p = opts.params();
      const pow = assetChainPowParams({ regtest: p.regtest, blocktime: p.ac.blocktime });
      // nextWorkRequired takes the parent first.
      return nextWorkRequired([...ancestors].reverse(), pow);
    },

    checkBlock(block, height, known) {
      const ctx = validationContext(opts.params());
      checkBlock(block, { ...ctx, checkPow: true, checkMerkle: true, height, now: opts.now ? opts.now() : Math.floor(Date.now() / 1000), ...known });
    },

    checkHeader(header, prev, now) {
      const ctx = validationContext(opts.params());
      contextualCheckBlockHeader(header, { height: prev.height, mtp: prev.mtp, nextBits: prev.nextBits }, ctx, now);
    },

    checkContextual(block, height) {
      contextualCheckBlock(block, height, validationContext(opts.params()));
    },

    connect(block, height, view, txids) {
      const params = opts.params();
      const ctx = validationContext(params);
      contextualCheckBlock(block, height, ctx);
      // No Sapling outputs are ever accepted, so the tree stays empty: its root is what a block carries.
      if (params.isSaplingActive(height) && !equalBytes(block.header.finalSaplingRoot, EMPTY_SAPLING_ROOT)) {
        throw new ValidationError(16, 'bad-sapling-root-in-block', 100);
      }
      const branchId = params.currentEpochBranchId(height);
      const ccChecker = opts.ccChecker?.(view, height);
      const checks = opts.verifyPool?.parallel
        ? opts.verifyPool.checks({ flags: BLOCK_SCRIPT_FLAGS, branchId, ccEnabled: ctx.ccEnabled, ...(opts.sigCache ? { cache: opts.sigCache } : {}), ...(ccChecker ? { ccChecker } : {}) })
        : undefined;
      let fees = 0n;
      let sigops = 0;
      forEachInBlockOrder(block.txs, checks, (tx, i) => {
        // Without the txids given, the one serialisation serves the txid and the batch the workers get
        // (with them, a transaction the script cache knows is never serialised at all).
        const raw = checks && i > 0 && !txids ? tx.toRaw() : undefined;
        const txid = txids?.[i] ?? (raw ? toHexReversed(sha256d(raw)) : tx.txid());
        sigops += legacySigOpCount(tx);
        if (i > 0) {
          try {
            fees += checkTxInputs(tx, view, height, ctx);
          } catch (e) {
            if (e instanceof MissingInputsError) throw new ValidationError(16, 'bad-txns-inputs-missingorspent', 100);
            throw e;
          }
          sigops += p2shInputsSigOpCount(tx, view);
          if (sigops > ctx.maxBlockSigops) throw new ValidationError(16, 'bad-blk-sigops', 100);
          // Scripts the mempool already ran for this txid at this branch are not run again.
          const verified = opts.scriptCache?.has(txid, branchId) ?? false;
          if (!verified && !checks?.defer(i, tx, view, raw)) checkInputScripts(tx, view, BLOCK_SCRIPT_FLAGS, branchId, {
            ccEnabled: ctx.ccEnabled,
            ...(ccChecker ? { ccChecker } : {}),
            ...(opts.sigCache ? { cache: opts.sigCache, cacheStore: false } : {}),
          });
        }
        view.apply(tx, txid, height);
      });
      checkCoinbaseValue(block, height, fees, ctx);
      return { fees };
    },
  };
}
