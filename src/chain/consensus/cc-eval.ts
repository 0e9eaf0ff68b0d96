import type { ChainParams } from '../params/chain-params.js';
import type { CryptoConditionChecker, TransactionSignatureChecker } from '../script/checker.js';
import type { Transaction } from '../tx/transaction.js';
import { toHexReversed } from '../encoding/hex.js';
import { dispatchEval, invalid, makeCCChecker, type EvalRegistry, type EvalResult } from '../cc/index.js';
import { registerTokensValidator, type TokensEvalContext } from '../tokens/index.js';
import { registerAssetsValidator } from '../assets/index.js';

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
