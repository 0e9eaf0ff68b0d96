/**
 * The order of komodod's address index (leveldb's order of CAddressUnspentKey within one address):
 * the chain store's ordered outputs, its paged walks and the mempool's address rows all sort by it.
 */

/** An outpoint: its txid as displayed (lowercase hex, reversed) and its output index. */
interface OutpointRef {
  txid: string;
  index: number;
}

/**
 * komodod's address-index order of two outpoints: the txids' internal bytes from the first (the
 * display hex's last pair), then the indexes' little-endian bytes. Compares characters in place:
 * lowercase hex digits sort as the nibbles they spell.
 */
export function compareOutpoints(a: OutpointRef, b: OutpointRef): number {
  return compareOutpointTo(a, b.txid, b.index);
}

/** compareOutpoints against an outpoint given as its parts (no object made for it). */
export function compareOutpointTo(a: OutpointRef, txid: string, index: number): number {
  const x = a.txid;
  if (x !== txid) {
    for (let i = 62; i >= 0; i -= 2) {
      const d = x.charCodeAt(i) - txid.charCodeAt(i) || x.charCodeAt(i + 1) - txid.charCodeAt(i + 1);
      if (d !== 0) return d;
    }
  }
  for (let k = 0; k < 32; k += 8) {
    const d = ((a.index >>> k) & 0xff) - ((index >>> k) & 0xff);
    if (d !== 0) return d;
  }
  return 0;
}
