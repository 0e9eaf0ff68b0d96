import { base58CoreLength, decodeBase58Check } from './base58check.js';
import { bech32Decode, fiveToEight } from './bech32.js';

/** A shielded payment address as komodod's DecodePaymentAddress reads it (key_io.cpp). */
export type PaymentAddress =
  | { type: 'sprout'; aPk: Uint8Array; pkEnc: Uint8Array }
  | { type: 'sapling'; d: Uint8Array; pkD: Uint8Array };

/** chainparams.cpp: ZCPAYMENT_ADDRRESS prefixes and the Sapling payment address HRP, main (asset chains) and regtest. */
const SPROUT_PREFIX = { main: [22, 154], regtest: [0x16, 0xb6] } as const;
const SAPLING_HRP = { main: 'zs', regtest: 'zregtestsapling' } as const;
/** ConvertedSaplingPaymentAddressSize: 43 bytes in 5-bit groups. */
const SAPLING_5BIT_SIZE = Math.floor(((32 + 11) * 8 + 4) / 5);

/**
 * DecodePaymentAddress: Base58Check with the chain's 2-byte Sprout prefix and 64 bytes (a_pk, pk_enc),
 * else Bech32 with the chain's Sapling HRP and 43 bytes (d, pk_d); anything else is null
 * (InvalidEncoding). Like komodod, the key bytes are not checked any further.
 */
export function decodePaymentAddress(s: string, regtest: boolean): PaymentAddress | null {
  const net = regtest ? 'regtest' : 'main';
  // 66 bytes + checksum take at most 96 digits: longer text is not decoded (the decoder is quadratic).
  const data = base58CoreLength(s) <= 96 ? decodeBase58Check(s) : null;
  const prefix = SPROUT_PREFIX[net];
  if (data && data.length === 66 && data[0] === prefix[0] && data[1] === prefix[1]) {
    return { type: 'sprout', aPk: data.slice(2, 34), pkEnc: data.slice(34, 66) };
  }
  const bech = bech32Decode(s);
  if (bech && bech.hrp === SAPLING_HRP[net] && bech.data.length === SAPLING_5BIT_SIZE) {
    const bytes = fiveToEight(bech.data);
    if (bytes) return { type: 'sapling', d: bytes.slice(0, 11), pkD: bytes.slice(11, 43) };
  }
  return null;
}
