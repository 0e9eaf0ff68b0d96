import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { messageHash, recoverCompact, signMessage } from '../../src/chain/crypto/message.js';
import { publicKeyFromPrivate, signCompact } from '../../src/chain/crypto/secp256k1.js';

/**
 * signmessage's CKey::SignCompact: the r||s is the node's transaction signer's (RFC 6979, low S, checked
 * against komodod's signatures in the vectors), the header names the recovery id and the key's form,
 * and recoverCompact (verifymessage) gives the key back.
 */
test('signMessage: RFC 6979 low-S r||s with a 27 + recid (+4 compressed) header that recovers the key', () => {
  for (let i = 0; i < 24; i++) {
    const key = Uint8Array.from(createHash('sha256').update(`signer ${i}`).digest());
    const message = i % 3 === 0 ? '' : `message ${i} ${'x'.repeat(i * 20)}`;
    for (const compressed of [true, false]) {
      const sig = signMessage(message, key, compressed);
      assert.equal(sig.length, 65);
      assert.deepEqual(sig.subarray(1), signCompact(messageHash(message), key));
      const header = sig[0]! - 27;
      assert.equal(header >= 4, compressed);
      assert.deepEqual(recoverCompact(messageHash(message), sig), publicKeyFromPrivate(key, compressed));
    }
  }
});
