import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { encodeWIF } from '../../src/chain/address/index.js';
import { encodeAddress, PUBKEY_ADDRESS } from '../../src/chain/address/address.js';
import { hash160 } from '../../src/chain/crypto/hash.js';

/** A key no daemon holds (another node's): its WIF, compressed public key, key id, R-address and P2PKH script, hex where bytes. */
export interface ForeignKey {
  wif: string;
  pubkey: string;
  id: string;
  address: string;
  script: string;
}

export function foreignKey(): ForeignKey {
  for (;;) {
    const secret = new Uint8Array(randomBytes(32));
    if (!secp256k1.utils.isValidSecretKey(secret)) continue;
    const pub = secp256k1.getPublicKey(secret, true);
    const id = hash160(pub);
    const idHex = Buffer.from(id).toString('hex');
    return { wif: encodeWIF(secret, true), pubkey: Buffer.from(pub).toString('hex'), id: idHex, address: encodeAddress(PUBKEY_ADDRESS, id), script: `76a914${idHex}88ac` };
  }
}
