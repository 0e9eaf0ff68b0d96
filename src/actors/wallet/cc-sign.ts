/**
 * FinalizeCCTx's signing for the CC module RPCs (tokens, assets): the -pubkey's wallet key signs the
 * assembled transaction here, inside the wallet, so the RPC layer never holds a private key; only the
 * signed transaction leaves. Same function, same key, same RFC 6979 nonces: the bytes the RPC layer
 * produced when it signed itself.
 */
import { signTokenTx, type BuildResult } from '../../chain/tokens/index.js';
import { signAssetsTx } from '../../chain/assets/index.js';
import type { CCSignRequest } from './protocol.js';

/** Signs `req`'s transaction with `secret` (the key of `req.assembled.mypk`). */
export function signCCTx(req: CCSignRequest, secret: Uint8Array): BuildResult {
  const args = { ...req.ctx, privateKey: secret };
  return req.module === 'tokens' ? signTokenTx(req.assembled, args) : signAssetsTx(req.assembled, args);
}
