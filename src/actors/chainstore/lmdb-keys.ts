/** Key pieces the LMDB indexes share: hashes in internal byte order, outpoints as txid | n u32 BE. */

/** A display-hex hash as its internal bytes. */
export function hashKey(display: string): Buffer {
  return Buffer.from(display, 'hex').reverse();
}

/** An outpoint key: the txid's internal bytes, then n as u32 BE (so a txid's outputs sort by n). */
export function outpointKey(txidInternal: Uint8Array, n: number): Buffer {
  const k = Buffer.allocUnsafe(36);
  k.set(txidInternal, 0);
  k.writeUInt32BE(n, 32);
  return k;
}
