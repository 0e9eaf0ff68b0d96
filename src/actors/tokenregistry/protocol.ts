/**
 * The token registry's protocol: tokeninfo, tokenlist and the token outputs at a CC address, as the
 * chain store's token index answers them. It emits nothing.
 */
import type { Protocol } from '../../machines/messages.js';
import type { OutputRef, TipPage, TokenOutput, TokenRecord } from '../chainstore/protocol.js';

export type { TokenOutput, TokenRecord } from '../chainstore/protocol.js';

export type TokenRegistryRequest =
  /** The chain tip the registry answers at. */
  | { op: 'status' }
  | { op: 'info'; tokenid: string }
  | { op: 'list' }
  /** tokenid: display hex; addressHash: Hash160 of the CC address's condition script (hex). */
  | { op: 'outputs'; tokenid: string; addressHash: string }
  /** A page of AddTokenCCInputs' walk: key order from the cursor `after`, outputs ≥ minValue. */
  | { op: 'outputsPage'; tokenid: string; addressHash: string; after?: OutputRef | undefined; limit: number; minValue?: bigint | undefined };

export interface TokenRegistryReplies {
  status: { height: number; hash: string };
  info: TokenRecord | null;
  list: string[];
  outputs: TokenOutput[];
  outputsPage: TipPage<TokenOutput>;
}

export type TokenRegistryProtocol = Protocol<TokenRegistryRequest, TokenRegistryReplies, never>;
