import { invalid, VALID, type EvalRegistry, type EvalResult } from '../cc/verify.js';
import { EVAL_ASSETS } from '../cc/eval-codes.js';
import type { Transaction } from '../tx/transaction.js';
import { validateAssets, type AssetsLookup } from './validate.js';

/** What the Assets eval validator needs: the same context the Tokens validator takes. */
export interface AssetsEvalContext {
  /** The transaction whose input holds the Eval(0xe3) node. */
  tx: Transaction;
  height: number;
  lookup: AssetsLookup;
  /**
   * Verdicts of earlier e3 inputs of the same transaction (the verdict does not depend on the input).
   * Kept apart from the Tokens validator's `cache`: one transaction gets both verdicts.
   */
  assetsCache?: Map<Transaction, EvalResult>;
}

/** The eval-0xE3 validator in the cc module's registry shape. */
export function assetsEvalValidator(_evalCode: number, _params: Uint8Array, ctx: AssetsEvalContext): EvalResult {
  const hit = ctx.assetsCache?.get(ctx.tx);
  if (hit) return hit;
  const r = validateAssets(ctx.tx, ctx.height, ctx.lookup);
  const out = r.ok ? VALID : invalid(r.reason);
  ctx.assetsCache?.set(ctx.tx, out);
  return out;
}

/** Registers the Assets validator under EVAL_ASSETS (next to registerTokensValidator). */
export function registerAssetsValidator<C extends AssetsEvalContext>(registry: EvalRegistry<C>): EvalRegistry<C> {
  registry.set(EVAL_ASSETS, assetsEvalValidator);
  return registry;
}
