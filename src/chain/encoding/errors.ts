/**
 * The one error type every decoder in src/chain throws on untrusted input: callers (the RPC layer,
 * the p2p actor) catch exactly this and map it to komodod's answer, so nothing else may escape.
 */
export class DecodeError extends Error {
  override readonly name = 'DecodeError';
  constructor(message: string) {
    super(message);
  }
}
