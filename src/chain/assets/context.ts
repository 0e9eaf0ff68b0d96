import { toHexReversed } from '../encoding/hex.js';
import type { Transaction } from '../tx/transaction.js';
import { tryDecodeTokenOpRet } from '../tokens/opret.js';
import { tryDecodeAssetTokenOpRet } from './opret.js';

const isZero = (h: Uint8Array) => h.every((b) => b === 0);

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
  const last = tx.vout[tx.vout.length - 1];
  if (last) {
    const token = tryDecodeTokenOpRet(last.script);
    if (token?.funcid === 't' && !isZero(token.tokenid)) ids.add(toHexReversed(token.tokenid));
    const asset = token ? tryDecodeAssetTokenOpRet(last.script) : null;
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
  const last = tx.vout[tx.vout.length - 1];
  if (!last) return false;
  const token = tryDecodeTokenOpRet(last.script);
  return token?.funcid === 't' && !isZero(token.tokenid);
}
