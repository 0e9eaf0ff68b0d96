import type { Block } from '../../chain/block/block.js';
import type { ChainParams } from '../../chain/params/chain-params.js';
import { ServiceFailure, type Op } from '../protocol.js';
import type { Asker } from '../ask.js';
import type { ServiceLogic, WriteOutcome } from '../../machines/service.js';
import type { MempoolEntry } from '../mempool/logic.js';
import { assembleBlock, solveBlock } from './assemble.js';

interface TemplateContext {
  height: number;
  hash: string;
  mtp: number;
  nextBits: number;
}

export interface MinerOptions {
  chain: Asker;
  mempool: Asker;
  payTo: Uint8Array;
  now?: () => number;
  log?: (msg: string) => void;
}

const WRITE_OPS = new Set(['generate', 'setGenerate']);

/**
 * The miner: builds a block from the mempool on the chain store's tip, solves it and submits it.
 * Mining runs one block at a time through the service queue, so `generate` and the -gen pacer never
 * race each other.
 */
export class MinerLogic implements ServiceLogic {
  readonly name = 'miner';
  generating = false;
  genProcLimit = -1;
  blocksMined = 0;
  lastBlock: { size: number; txs: number } = { size: 0, txs: 0 };
  /** When the wait for the clock was last logged (at most once a minute, not once per block). */
  private waitLoggedAt = 0;
  private readonly now: () => number;

  constructor(private readonly opts: MinerOptions) {
    this.now = opts.now ?? (() => Math.floor(Date.now() / 1000));
  }

  async load(): Promise<void> {}
  async close(): Promise<void> {}

  isWrite(body: Op): boolean {
    return WRITE_OPS.has(body.op);
  }

  read(body: Op): unknown {
    switch (body.op) {
      case 'status':
        return { generating: this.generating, genProcLimit: this.genProcLimit, blocksMined: this.blocksMined, lastBlock: this.lastBlock };
      default:
        throw new ServiceFailure(-32601, `miner has no operation ${body.op}`);
    }
  }

  async write(body: Op): Promise<WriteOutcome> {
    switch (body.op) {
      case 'generate': {
        const hashes: string[] = [];
        // A shutdown ends a long `generate N` after the block in progress (its hashes so far are returned).
        for (let i = 0; i < (body.n as number) && !this.aborted; i++) hashes.push(await this.mineOne());
        return { result: hashes };
      }
      case 'setGenerate':
        this.generating = body.on as boolean;
        if (typeof body.procs === 'number') this.genProcLimit = body.procs;
        return { result: null, notices: [{ type: 'generateChanged', on: this.generating }] };
      default:
        throw new ServiceFailure(-32601, `miner has no operation ${body.op}`);
    }
  }

  /** Set at shutdown, before the stop request is queued behind a running `generate`. */
  private aborted = false;

  abort(): void {
    this.aborted = true;
  }

  summary(): Record<string, unknown> {
    return { generating: this.generating, blocksMined: this.blocksMined };
  }

  /** Mines one block on the current tip and returns its hash. */
  async mineOne(): Promise<string> {
    let waited = 0;
    for (let attempt = 0; attempt < 5; attempt++) {
      const tpl = await this.opts.chain.ask<TemplateContext>({ op: 'template' });
      const params = await this.opts.chain.ask<ChainParams>({ op: 'params' });
      // Blocks mined faster than one per second run their timestamps (at least MTP+1) ahead of the
      // clock; past now + nMaxFutureBlockTime (35 s on the dev chain, about 200 blocks of
      // `generate`) the block would be refused as time-too-new. Wait for the clock instead of
      // mining a block that cannot connect (komodod's generate fails there).
      const ahead = tpl.mtp + 1 - (this.now() + params.maxFutureBlockTime);
      if (ahead > 0 && waited < 2 * params.maxFutureBlockTime) {
        if (Date.now() - this.waitLoggedAt > 60_000) {
          this.opts.log?.(`block times are ${params.maxFutureBlockTime + ahead} s ahead of the clock: mining waits for it`);
          this.waitLoggedAt = Date.now();
        }
        await new Promise((r) => setTimeout(r, ahead * 1000));
        waited += ahead;
        attempt--;
        continue;
      }
      const entries = await this.opts.mempool.ask<MempoolEntry[]>({ op: 'entries' });
      const { block, txCount } = assembleBlock({
        prevHash: tpl.hash,
        height: tpl.height + 1,
        bits: tpl.nextBits,
        mtp: tpl.mtp,
        params,
        txs: entries.map((e) => ({ tx: e.tx, fee: e.fee, size: e.size })),
        payTo: this.opts.payTo,
        now: this.now(),
      });
      if (!solveBlock(block, params)) continue;
      const result = await this.submit(block);
      if (result.status === 'connected') {
        this.blocksMined++;
        this.lastBlock = { size: block.toRaw().length, txs: txCount + 1 };
        return result.hash;
      }
      // The tip moved while solving (a block from elsewhere): build again on the new tip.
      this.opts.log?.(`mined block not connected (${result.status}${result.reason ? `: ${result.reason}` : ''}); retrying`);
    }
    throw new ServiceFailure(-1, 'mining failed: no block could be connected');
  }

  private submit(block: Block) {
    return this.opts.chain.ask<{ status: string; hash: string; reason?: string }>({ op: 'submitBlock', raw: block.toRaw() });
  }
}
