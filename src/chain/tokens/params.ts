import { IGUANA_MAXSCRIPTSIZE } from '../consensus/script.js';
import { TOKEN_DESCRIPTION_MAX, TOKEN_NAME_MAX } from './constants.js';
import { parseHexLenient, parseTokenAmount, parseTokenSupply, parseUint256 } from './cparse.js';

/**
 * The checks komodod's tokencreate / tokentransfer RPCs make on their params before building
 * (rpcwallet.cpp at 0adeeab), in komodod's order and with its messages. A failure is the text of the
 * `{"result":"error","error":…}` object komodod answers with.
 */

export type ParamCheck<T> = { ok: true; value: T } | { ok: false; error: string };

const utf8 = new TextEncoder();

export interface TokenCreateParams {
  name: string;
  /** Decimal coins, as text (a JSON number is passed as its decimal text). */
  supply: string;
  description?: string;
  /** NFT data as hex. */
  data?: string;
}

export interface TokenCreateRequest {
  name: Uint8Array;
  /** Units (satoshis). */
  supply: bigint;
  description: Uint8Array;
  /** Empty for a fungible token. */
  nftData: Uint8Array;
}

export function checkTokenCreateParams(p: TokenCreateParams): ParamCheck<TokenCreateRequest> {
  const name = utf8.encode(p.name);
  if (name.length === 0 || name.length > TOKEN_NAME_MAX) {
    return { ok: false, error: 'Token name must not be empty and up to 32 characters' };
  }
  const supply = parseTokenSupply(p.supply);
  if (supply <= 0n) return { ok: false, error: 'Token supply must be positive' };
  const description = utf8.encode(p.description ?? '');
  if (description.length > TOKEN_DESCRIPTION_MAX) {
    return { ok: false, error: 'Token description must be <= 4096 characters' };
  }
  let nftData: Uint8Array = new Uint8Array(0);
  if (p.data !== undefined) {
    nftData = parseHexLenient(p.data);
    if (nftData.length > IGUANA_MAXSCRIPTSIZE) {
      return { ok: false, error: `Non-fungible data size must be <= ${IGUANA_MAXSCRIPTSIZE}` };
    }
    if (nftData.length === 0) return { ok: false, error: 'Non-fungible data incorrect' };
  }
  return { ok: true, value: { name, supply, description, nftData } };
}

export interface TokenTransferParams {
  tokenid: string;
  destpubkey: string;
  /** Raw units, as text. */
  amount: string;
}

export interface TokenTransferRequest {
  /** Internal byte order. */
  tokenid: Uint8Array;
  destPubkey: Uint8Array;
  amount: bigint;
}

export function checkTokenTransferParams(p: TokenTransferParams): ParamCheck<TokenTransferRequest> {
  const tokenid = parseUint256(p.tokenid);
  const destPubkey = parseHexLenient(p.destpubkey);
  const amount = parseTokenAmount(p.amount);
  if (tokenid.every((b) => b === 0)) return { ok: false, error: 'invalid tokenid' };
  if (amount <= 0n) return { ok: false, error: 'amount must be positive' };
  // komodod does not check the key: a bad one becomes an invalid CPubKey whose uninitialised bytes go
  // into the output's condition (a tx that fails validation later). acnode refuses anything but a
  // 33-byte compressed encoding, with the message komodod's other CC RPCs use for a bad destination
  // key. The point need not be on the curve: CC_BURNPUBKEY (02dead…) is a legitimate destination.
  if (destPubkey.length !== 33 || (destPubkey[0] !== 2 && destPubkey[0] !== 3)) {
    return { ok: false, error: 'invalid destination pubkey' };
  }
  return { ok: true, value: { tokenid, destPubkey, amount } };
}
