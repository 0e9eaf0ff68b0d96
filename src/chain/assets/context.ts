import { toHexReversed } from '../encoding/hex.js';
import { OP_RETURN } from '../script/opcodes.js';
import type { Transaction } from '../tx/transaction.js';
import { tryDecodeTokenOpRet, type TokenOpRet } from '../tokens/opret.js';
import { tryDecodeAssetTokenOpRet } from './opret.js';

const isZero = (h: Uint8Array) => h.every((b) => b === 0);

/** The token OP_RETURN of `tx` (its last output), if it has one; a plain output is passed over without decoding. */
function tokenOpRetOf(tx: Transaction): { script: Uint8Array; token: TokenOpRet } | null {
  const last = tx.vout[tx.vout.length - 1];
  if (!last || last.script[0] !== OP_RETURN) return null;
  const token = tryDecodeTokenOpRet(last.script);
  return token ? { script: last.script, token } : null;
}

/**
 * The transactions the Tokens and Assets validators read about `tx` (display txids): the ones its
 * inputs spend, and the ones its OP_RETURN names (the token or asset creation tx, a swap's second
 * asset). The validators read one level further: each spent token tx must balance itself, and a
 * creation tx's normal inputs are weighed against its supply, so a validation context is ccReads of
 * the validated tx and ccReads of each of those (validate.ts of both modules).
 */
export function ccReads(tx: Transaction): string[] {
  const ids = new Set<string>();
  for (const vin of tx.vin) if (!vin.prevout.isNull()) ids.add(vin.prevout.txid());
  const opret = tokenOpRetOf(tx);
  if (opret) {
    if (opret.token.funcid === 't' && !isZero(opret.token.tokenid)) ids.add(toHexReversed(opret.token.tokenid));
    const asset = tryDecodeAssetTokenOpRet(opret.script);
    if (asset && !isZero(asset.assetid2)) ids.add(toHexReversed(asset.assetid2));
  }
  return [...ids];
}

/**
 * Whether the Tokens and Assets validators read any transaction when they check `tx`: only when its
 * OP_RETURN is a token transfer (or an order on one) naming a token. Without one, both refuse it before
 * any lookup (TokensValidate: 'cant find token create txid'; AssetsValidate: 'illegal assetid').
 */
export function readsContext(tx: Transaction): boolean {
  const token = tokenOpRetOf(tx)?.token;
  return token?.funcid === 't' && !isZero(token.tokenid);
}
