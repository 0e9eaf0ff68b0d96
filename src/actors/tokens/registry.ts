import type { ServiceLogic, WriteOutcome } from '../../machines/service.js';
import type { Asker } from '../ask.js';
import type { ChainStoreProtocol } from '../chainstore/protocol.js';
import { ServiceFailure, type Op } from '../protocol.js';

export type { TokenOutput, TokenRecord } from '../chainstore/tokenindex.js';


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
export class TokenRegistryLogic implements ServiceLogic {
  readonly name = 'tokenRegistry';
  private tokens = 0;

  constructor(private readonly opts: TokenRegistryOptions) {}

  async load(): Promise<void> {}

  async close(): Promise<void> {}

  isWrite(_body: Op): boolean {
    // Answered through the chain store (an asynchronous ask).
    return true;
  }

  read(body: Op): unknown {
    throw new ServiceFailure(-32601, `tokenRegistry has no operation ${body.op}`);
  }

  async write(body: Op): Promise<WriteOutcome> {
    const chain = this.opts.chain;
    switch (body.op) {
      case 'status': {
        const tip = await chain.ask({ op: 'tip' });
        return { result: { height: tip.height, hash: tip.hash } };
      }
      case 'info':
        return { result: await chain.ask({ op: 'tokenInfo', tokenid: body.tokenid as string }) };
      case 'list': {
        const list = await chain.ask({ op: 'tokenList' });
        this.tokens = list.length;
        return { result: list };
      }
      case 'outputs':
        return { result: await chain.ask({ op: 'tokenOutputs', tokenid: body.tokenid as string, addressHash: body.addressHash as string }) };
      case 'outputsPage':
        // A page of AddTokenCCInputs' walk: key order from the cursor `after`, outputs ≥ minValue.
        return {
          result: await chain.ask({
            op: 'tokenOutputsPage',
            tokenid: body.tokenid as string,
            addressHash: body.addressHash as string,
            ...(body.after !== undefined ? { after: body.after } : {}),
            limit: body.limit as number,
            ...(body.minValue !== undefined ? { minValue: body.minValue } : {}),
          }),
        };
      default:
        throw new ServiceFailure(-32601, `tokenRegistry has no operation ${body.op}`);
    }
  }

  summary(): Record<string, unknown> {
    return { tokensListed: this.tokens };
  }
}
