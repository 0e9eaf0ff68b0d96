import { invalid, VALID, type EvalRegistry, type EvalResult } from '../cc/verify.js';
import { EVAL_TOKENS } from '../cc/eval-codes.js';
import type { Transaction } from '../tx/transaction.js';
import { validateTokens, type TokensLookup } from './validate.js';

/** What the Tokens eval validator needs from whoever verifies the spending transaction. */
export interface TokensEvalContext {
  /** The transaction whose input holds the Eval(0xf2) node. */
  tx: Transaction;
  /** Height the transaction is validated at. */
  height: number;
  lookup: TokensLookup;
}

/**
 * The eval-0xF2 validator in the cc module's registry shape. komodod runs TokensValidate once per
 * input carrying Eval(0xf2), and the verdict does not depend on the input, so a context may carry
 * the verdict of an earlier input of the same transaction (`cache`) to save the work.
 */
export function tokensEvalValidator(_evalCode: number, _params: Uint8Array, ctx: TokensEvalContext & { cache?: Map<Transaction, EvalResult> }): EvalResult {
  const hit = ctx.cache?.get(ctx.tx);
  if (hit) return hit;
  const r = validateTokens(ctx.tx, ctx.height, ctx.lookup);
  const out = r.ok ? VALID : invalid(r.reason);
  ctx.cache?.set(ctx.tx, out);
  return out;
}

/** Registers the Tokens validator under EVAL_TOKENS. */
export function registerTokensValidator<C extends TokensEvalContext>(registry: EvalRegistry<C>): EvalRegistry<C> {
  registry.set(EVAL_TOKENS, tokensEvalValidator);
  return registry;
}
