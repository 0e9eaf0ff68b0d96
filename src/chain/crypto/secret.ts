/**
 * A private key as it travels between the wallet actor and the RPC methods. Whatever renders it —
 * JSON, string conversion, the -inspect observer's sanitiser (which calls toJSON) — sees
 * `[secret]`, never the bytes: keys never appear in logs.
 */
export class Secret {
  constructor(readonly bytes: Uint8Array) {}

  toJSON(): string {
    return '[secret]';
  }

  toString(): string {
    return '[secret]';
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return '[secret]';
  }
}
