export { encodeBase58, decodeBase58 } from './base58.js';
export { encodeBase58Check, decodeBase58Check } from './base58check.js';
export {
  PUBKEY_ADDRESS,
  SCRIPT_ADDRESS,
  SECRET_KEY,
  encodeAddress,
  decodeAddress,
  pubkeyToAddress,
  p2shAddress,
  addressToScript,
} from './address.js';
export { encodeWIF, decodeWIF } from './wif.js';
