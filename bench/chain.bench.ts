import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { blake2b as nobleBlake2b } from '@noble/hashes/blake2.js';
import { ripemd160 as nobleRipemd160 } from '@noble/hashes/legacy.js';
import { Transaction } from '../src/chain/tx/transaction.js';
import { fromHex } from '../src/chain/encoding/hex.js';
import { signDER, verifyDER, publicKeyFromPrivate } from '../src/chain/crypto/secp256k1.js';
import { BufferWriter } from '../src/chain/encoding/writer.js';
import { blake2b256, hash160, personalization, sha256d } from '../src/chain/crypto/hash.js';
import { blake2b } from '../src/chain/crypto/blake2b.js';
import { signatureHash, SIGHASH_ALL } from '../src/chain/script/sighash.js';
import { SAPLING_BRANCH_ID } from '../src/chain/consensus/upgrades.js';
import { bestOfInterleaved, opsPerSecond, type Row } from './lib.js';

const vectors = process.env.ACNODE_VECTORS ?? join(import.meta.dirname, '..', '..', 'shared', 'vectors');

/** A real v4 token transaction from the vectors, or a v1 example transaction when they are absent. */
function sampleTx(): Uint8Array {
  const f = join(vectors, 'komodo-examples/developer-docs/tokens_tokencreate_v4_916a6907e39c.json');
  if (existsSync(f)) return fromHex((JSON.parse(readFileSync(f, 'utf8')) as { hex: string }).hex);
  return fromHex(
    '0400008085202f890122111111111111111111111111111111111111111111111111111111111111110000000000ffffffff0100e1f505000000001976a914f1dce4182fce875748c4986b240ff7d7bc3fffb088ac000000002c0100000000000000000000000000',
  );
}

export function chainBenchmarks(): Row[] {
  const raw = sampleTx();
  const rows: Row[] = [];

  // Parse + serialise + txid is built on one double SHA-256 of the same bytes.
  const txid = opsPerSecond(() => void Transaction.fromRaw(raw).hash());
  const sha = opsPerSecond(() => void sha256(sha256(raw)));
  rows.push({ name: `tx parse+serialise+txid (${raw.length} B)`, value: txid, unit: 'ops/s', limitName: 'bare sha256d of the same bytes', limit: sha });

  // Our ECDSA wrapper against bare @noble/curves on the same digest and key.
  const key = sha256(Uint8Array.of(1));
  const pub = publicKeyFromPrivate(key);
  const digest = sha256(Uint8Array.of(2));
  const sig = signDER(digest, key);
  const [signOurs, signBare] = bestOfInterleaved([
    () => void signDER(digest, key),
    () => void secp256k1.sign(digest, key, { prehash: false, format: 'der' }),
  ]) as [number, number];
  rows.push({ name: 'ECDSA sign (low-S DER)', value: signOurs, unit: 'ops/s', limitName: 'bare @noble/curves sign', limit: signBare, target: { kind: 'min', ratio: 0.9 } });
  const [verifyOurs, verifyBare] = bestOfInterleaved([
    () => void verifyDER(sig, digest, pub),
    () => void secp256k1.verify(sig, digest, pub, { prehash: false, format: 'der' }),
  ]) as [number, number];
  rows.push({ name: 'ECDSA verify (DER)', value: verifyOurs, unit: 'ops/s', limitName: 'bare @noble/curves verify', limit: verifyBare, target: { kind: 'min', ratio: 0.8 } });
  return rows;
}

/** ZIP-243 sighash beside BLAKE2b over the very byte strings it hashes (prevouts, sequences, outputs, preimage). */
export function sighashBenchmarks(): Row[] {
  const tx = Transaction.fromRaw(sampleTx());
  const scriptCode = fromHex('76a914f1dce4182fce875748c4986b240ff7d7bc3fffb088ac');
  const prevouts = new BufferWriter();
  const sequences = new BufferWriter();
  for (const i of tx.vin) {
    i.prevout.write(prevouts);
    sequences.u32(i.sequence);
  }
  const outputs = new BufferWriter();
  for (const o of tx.vout) o.write(outputs);
  // The preimage: header, group, 6 hashes, locktime, expiry, valueBalance, hashType, prevout, script, amount, sequence.
  const preimage = new Uint8Array(4 + 4 + 32 * 6 + 4 + 4 + 8 + 4 + 36 + 1 + scriptCode.length + 8 + 4);
  const parts = [prevouts.finish(), sequences.finish(), outputs.finish(), preimage];
  const pers = personalization('ZcashSigHash', new Uint8Array(4));
  const [ours, bare] = bestOfInterleaved([
    () => void signatureHash(scriptCode, tx, 0, SIGHASH_ALL, 100_000_000n, SAPLING_BRANCH_ID),
    () => {
      for (const p of parts) blake2b256(p, pers);
    },
  ]) as [number, number];
  // Our BLAKE2b against @noble/hashes on those byte strings (4 hashes per operation).
  const [blakeOurs, blakeNoble] = bestOfInterleaved([
    () => {
      for (const p of parts) blake2b(p, 32, pers);
    },
    () => {
      for (const p of parts) nobleBlake2b(p, { dkLen: 32, personalization: pers });
    },
  ]) as [number, number];
  // Our SHA-256 (sha256.ts) against @noble/hashes: a txid (sha256d of the sample transaction's bytes)
  // and a merkle pair (sha256d of 64 bytes), the hashes a node computes for every transaction.
  const raw = tx.toRaw();
  const pair = new Uint8Array(64).fill(7);
  const [txidOurs, txidNoble, pairOurs, pairNoble] = bestOfInterleaved([
    () => sha256d(raw),
    () => sha256(sha256(raw)),
    () => sha256d(pair),
    () => sha256(sha256(pair)),
  ]) as [number, number, number, number];
  // hash160 (own SHA-256 and RIPEMD-160) of a compressed public key: every address and address-index entry.
  const key = publicKeyFromPrivate(new Uint8Array(32).fill(3));
  const [h160Ours, h160Noble] = bestOfInterleaved([() => hash160(key), () => nobleRipemd160(sha256(key))]) as [number, number];
  return [
    { name: 'hash160 of a 33-byte key (src/chain/crypto/ripemd160.ts)', value: h160Ours, unit: 'ops/s', limitName: 'bare @noble/hashes ripemd160(sha256), same bytes', limit: h160Noble },
    { name: `txid: sha256d of a ${raw.length}-byte tx (src/chain/crypto/sha256.ts)`, value: txidOurs, unit: 'ops/s', limitName: 'bare @noble/hashes sha256 twice, same bytes', limit: txidNoble, target: { kind: 'min', ratio: 1.3 } },
    { name: 'merkle pair: sha256d of 64 bytes', value: pairOurs, unit: 'ops/s', limitName: 'bare @noble/hashes sha256 twice, same bytes', limit: pairNoble },
    { name: `ZIP-243 sighash, 1 of ${tx.vin.length} inputs, no cache`, value: ours, unit: 'ops/s', limitName: 'bare BLAKE2b of the same byte strings', limit: bare, target: { kind: 'min', ratio: 0.8 } },
    { name: 'BLAKE2b-256 (src/chain/crypto/blake2b.ts)', value: blakeOurs, unit: 'ops/s', limitName: 'bare @noble/hashes blake2b, same byte strings', limit: blakeNoble, target: { kind: 'min', ratio: 2 } },
  ];
}
