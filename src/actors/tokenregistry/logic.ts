import type { ServiceLogic, WriteOutcome } from '../../machines/service.js';
import type { Asker } from '../ask.js';
import type { ChainStoreProtocol } from '../chainstore/protocol.js';
import { noSuchOp } from '../protocol.js';
import type { TokenRegistryReplies, TokenRegistryRequest } from './protocol.js';

export type { TokenOutput, TokenRecord } from './protocol.js';

export interface TokenRegistryOptions {
  chain: Asker<ChainStoreProtocol>;
  log?: (msg: string) => void;
}

/**
 * The token registry's service: tokeninfo, tokenlist and the token outputs at a CC address, as the
 * chain store's token index (kept in LMDB in the write transaction of each block, see
 * chainstore/tokenindex.ts) answers them. Nothing is held or rebuilt here: a query is answered from
 * the chain's committed state, which includes every block whose submission has been answered.
 */
export class TokenRegistryLogic implements ServiceLogic<TokenRegistryRequest, never> {
  readonly name = 'tokenRegistry';
  private tokens = 0;

  constructor(private readonly opts: TokenRegistryOptions) {}

  async load(): Promise<void> {}

  async close(): Promise<void> {}

  isWrite(_body: TokenRegistryRequest): boolean {
    // Answered through the chain store (an asynchronous ask).
    return true;
  }

  read(body: TokenRegistryRequest): never {
    throw noSuchOp('tokenRegistry', body);
  }

  async write(body: TokenRegistryRequest): Promise<WriteOutcome<never> & { result: TokenRegistryReplies[keyof TokenRegistryReplies] }> {
    const chain = this.opts.chain;
    switch (body.op) {
      case 'status': {
        const tip = await chain.ask({ op: 'tip' });
        return { result: { height: tip.height, hash: tip.hash } };
      }
      case 'info':
        return { result: await chain.ask({ op: 'tokenInfo', tokenid: body.tokenid }) };
      case 'list': {
        const list = await chain.ask({ op: 'tokenList' });
        this.tokens = list.length;
        return { result: list };
      }
      case 'outputs':
        return { result: await chain.ask({ op: 'tokenOutputs', tokenid: body.tokenid, addressHash: body.addressHash }) };
      case 'outputsPage':
        // A page of AddTokenCCInputs' walk: key order from the cursor `after`, outputs ≥ minValue.
        return {
          result: await chain.ask({
            op: 'tokenOutputsPage',
            tokenid: body.tokenid,
            addressHash: body.addressHash,
            ...(body.after !== undefined ? { after: body.after } : {}),
            limit: body.limit,
            ...(body.minValue !== undefined ? { minValue: body.minValue } : {}),
          }),
        };
      default:
        throw noSuchOp('tokenRegistry', body);
    }
  }

  summary(): Record<string, unknown> {
    return { tokensListed: this.tokens };
  }
}
