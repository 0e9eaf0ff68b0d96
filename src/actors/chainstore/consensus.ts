import type { ChainParams } from '../../chain/params/chain-params.js';
import { kmdGenesisBlock, regtestGenesisBlock } from '../../chain/block/genesis.js';
import { assetChainPowParams, nextWorkRequired } from '../../chain/block/pow.js';
import { equalBytes } from '../../chain/encoding/hex.js';
import { BLOCK_SCRIPT_FLAGS, EMPTY_SAPLING_ROOT } from '../../chain/consensus/block.js';
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
import { toHexReversed } from '../../chain/encoding/hex.js';
import { sha256d } from '../../chain/crypto/hash.js';

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
