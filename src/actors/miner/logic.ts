import type { Block } from '../../chain/block/block.js';
import { NULL_HASH_HEX } from '../../chain/encoding/hex.js';
import type { ChainParams } from '../../chain/params/chain-params.js';
import { ServiceFailure, noSuchOp } from '../protocol.js';
import type { Asker } from '../ask.js';
import type { ChainReader, ChainStoreProtocol, Outpoint, PrevContext } from '../chainstore/protocol.js';
import type { ServiceLogic, WriteOutcome } from '../../machines/service.js';
import type { MempoolProtocol } from '../mempool/protocol.js';
import type { BlockTemplate, MinerNotice, MinerReplies, MinerRequest, MinerStatus } from './protocol.js';
import { setTimeout as delay } from 'node:timers/promises';
import { maxBlockTimeAhead } from '../../chain/validation/block.js';
import { assembleBlock, solveBlock } from '../../chain/block/assemble.js';
import { chainOutpoints } from './select.js';
import { selectForBlock } from './priority.js';
import type { PriorityDelta } from '../mempool/protocol.js';
import { validationContext, type Coin } from '../../chain/validation/index.js';
import { outpointKey } from '../../chain/tx/input.js';
import { legacySigOpCount } from '../../chain/validation/sigops.js';

export interface MinerOptions {
  chain: Asker<ChainStoreProtocol>;
  mempool: Asker<MempoolProtocol>;
  /** The chain's coins read without a message (the chain store's LMDB environment), as the mempool reads them. */
  reader?: ChainReader;
  payTo: Uint8Array;
  /** The clock in milliseconds (the chain store's time rules read the same clock). */
  clockMs?: () => number;
  log?: (msg: string) => void;
}

const WRITE_OPS = new Set(['generate', 'setGenerate', 'template']);

/**
 * The miner: builds a block from the mempool on the chain store's tip, solves it and submits it.
 * Mining runs one block at a time through the service queue, so `generate` and the -gen pacer never
 * race each other.
 */
export class MinerLogic implements ServiceLogic<MinerRequest, MinerNotice> {
  readonly name = 'miner';
  generating = false;
  genProcLimit = -1;
  blocksMined = 0;
  lastBlock: { size: number; txs: number } = { size: 0, txs: 0 };
  /**
   * The solution-rate meter (komodod's solutionTargetChecks over miningTimer): solutions checked
   * against the target, and the time spent solving. komodod times whole seconds of its always-running
   * threads; acnode solves one block at a time, so it times each solve to the millisecond.
   */
  private solutionChecks = 0;
  /** Block templates whose coins were read through the reader (not asked of the chain store), for inspection. */
  private coinsRead = 0;
  private solvingMs = 0;
  /** When the wait for the clock was last logged (at most once a minute, not once per block). */
  private waitLoggedAt = 0;
  private readonly clockMs: () => number;

  constructor(private readonly opts: MinerOptions) {
    this.clockMs = opts.clockMs ?? Date.now;
  }

  async load(): Promise<void> {}
  async close(): Promise<void> {}

  isWrite(body: MinerRequest): boolean {
    return WRITE_OPS.has(body.op);
  }

  read(body: MinerRequest): MinerReplies[keyof MinerReplies] {
    switch (body.op) {
      case 'status':
        return {
          generating: this.generating,
          genProcLimit: this.genProcLimit,
          blocksMined: this.blocksMined,
          lastBlock: this.lastBlock,
          localSolPS: this.solvingMs > 0 ? this.solutionChecks / (this.solvingMs / 1000) : 0,
        } satisfies MinerStatus;
      default:
        throw noSuchOp('miner', body);
    }
  }

  async write(body: MinerRequest): Promise<WriteOutcome<MinerNotice>> {
    switch (body.op) {
      case 'generate': {
        const hashes: string[] = [];
        // A shutdown ends a long `generate N` after the block in progress (its hashes so far are returned).
        for (let i = 0; i < body.n && !this.aborted; i++) {
          const hash = await this.mineOne();
          if (hash === null) break;
          hashes.push(hash);
        }
        return { result: hashes };
      }
      case 'setGenerate':
        this.generating = body.on;
        if (typeof body.procs === 'number') this.genProcLimit = body.procs;
        return { result: null, notices: [{ type: 'generateChanged', on: this.generating }] };
      case 'template': {
        // A tip that moves while the template is built: build again on the new one.
        for (;;) {
          const built = await this.build();
          if (!built) continue;
          const { block, tpl, params, fees, sigops } = built;
          const total = fees.reduce((a, b) => a + b, 0n);
          return {
            result: {
              block: block.toRaw(),
              height: tpl.height + 1,
              prevHash: tpl.hash,
              mtp: tpl.mtp,
              subsidy: params.blockSubsidy(tpl.height + 1),
              fees: [-total, ...fees],
              sigops: [legacySigOpCount(block.txs[0]!), ...sigops],
            } satisfies BlockTemplate,
          };
        }
      }
      default:
        throw noSuchOp('miner', body);
    }
  }

  /** Set at shutdown, before the stop request is queued behind a running `generate`. */
  private aborted = false;
  /** Ends a wait for the clock at shutdown. */
  private readonly abortWaits = new AbortController();

  abort(): void {
    this.aborted = true;
    this.abortWaits.abort();
  }

  summary(): Record<string, unknown> {
    return { generating: this.generating, blocksMined: this.blocksMined, coinsRead: this.coinsRead };
  }

  /**
   * Mines one block on the current tip and returns its hash, or null when the node began shutting
   * down while the miner waited for the clock.
   */
  async mineOne(): Promise<string | null> {
    let tipMoves = 0;
    for (;;) {
      const tpl = await this.readTip();
      const params = await this.readParams();
      // The block carries max(MTP+1, now). Mined faster than six blocks a second, MTP+1 runs ahead of
      // the clock (one second per six blocks); past the allowed drift the block would be refused as
      // time-too-new (komodod's generate fails there). Wait until the clock makes MTP+1 acceptable,
      // then read the tip again: it may have moved meanwhile.
      const waitMs = this.clockWaitMs(tpl.mtp + 1, params);
      if (waitMs > 0) {
        this.logWait(tpl.mtp + 1, params);
        if (!(await this.sleep(waitMs))) return null;
        continue;
      }
      const built = await this.build(tpl, params);
      if (!built) continue;
      const { block, txCount } = built;
      const t0 = performance.now();
      const solved = solveBlock(block, params, undefined, () => this.solutionChecks++);
      this.solvingMs += performance.now() - t0;
      if (!solved) continue;
      const result = await this.submit(block);
      if (result.status === 'connected') {
        this.blocksMined++;
        this.lastBlock = { size: block.toRaw().length, txs: txCount + 1 };
        return result.hash;
      }
      const reason = result.status === 'rejected' ? result.reason : undefined;
      if (reason === 'time-too-new') {
        // Only a clock that stepped back between the wait and the check gets here: wait until this
        // block's time is acceptable (at least a second, so a disagreeing clock never spins), then rebuild.
        this.opts.log?.(`mined block refused as time-too-new (time ${block.header.time}): waiting for the clock`);
        if (!(await this.sleep(Math.max(1000, this.clockWaitMs(block.header.time, params))))) return null;
        continue;
      }
      // The tip moved while solving (a block from elsewhere): build again on the new tip.
      this.opts.log?.(`mined block not connected (${result.status}${reason ? `: ${reason}` : ''}); retrying`);
      if (++tipMoves >= 5) throw new ServiceFailure(-1, 'mining failed: no block could be connected');
    }
  }

  /**
   * CreateNewBlock: the mempool transactions a block on the tip can take, the coinbase paying the
   * subsidy and their fees, the merkle root set; null when the tip moved while the coins were read.
   */
  private async build(
    tipNow?: PrevContext,
    paramsNow?: ChainParams,
  ) {
    const tpl = tipNow ?? (await this.readTip());
    const params = paramsNow ?? (await this.readParams());
    const entries = await this.opts.mempool.ask({ op: 'entries' });
    // The coins they spend, read with the tip in one step; a tip that moved meanwhile: start again.
    const outpoints = chainOutpoints(entries);
    const read = await this.coinsAt(tpl.hash, outpoints);
    if (!read) return null;
    const coins = new Map<string, Coin>();
    outpoints.forEach(([t, n], k) => {
      const c = read[k];
      if (c) coins.set(outpointKey(t, n), c);
    });
    const height = tpl.height + 1;
    // prioritisetransaction's deltas, read for the transactions at hand.
    const deltaList = await this.opts.mempool.ask({ op: 'deltas', txids: entries.map((e) => e.txid) });
    const deltas = new Map<string, PriorityDelta>();
    deltaList.forEach((d, k) => d && deltas.set(entries[k]!.txid, d));
    const picked = selectForBlock(entries, coins, height, tpl.mtp, validationContext(params), deltas, params.maxBlockSize(height) - 1000);
    const { block, txCount, chosen } = assembleBlock({
      prevHash: tpl.hash,
      height,
      bits: tpl.nextBits,
      mtp: tpl.mtp,
      params,
      txs: picked.map(({ entry: e }) => ({ tx: e.tx, fee: e.fee, size: e.size, txid: e.txid })),
      payTo: this.opts.payTo,
      now: Math.floor(this.clockMs() / 1000),
    });
    return { block, txCount, tpl, params, fees: chosen.map((k) => picked[k]!.entry.fee), sigops: chosen.map((k) => picked[k]!.sigops) };
  }

  /**
   * The coins `outpoints` name at the tip `tip`: read through the reader, in one read transaction
   * whose committed tip it checks is `tip` (no message); else asked of the chain store, which answers
   * at its own tip. Null when that is another: the tip moved since `tip` was read.
   */
  private async coinsAt(tip: string, outpoints: Outpoint[]): Promise<(Coin | null)[] | null> {
    // No transaction of its own to look up (the view's hasUnspentOutputs part): the null txid.
    const read = this.opts.reader?.coins(tip, [{ txid: NULL_HASH_HEX, outpoints, outputs: 0 }]);
    if (read?.length === 1) {
      this.coinsRead++;
      return read[0]!.coins;
    }
    const view = await this.opts.chain.ask({ op: 'view', txid: NULL_HASH_HEX, outpoints });
    return view.hash === tip ? view.coins : null;
  }

  private readTip() {
    return this.opts.chain.ask({ op: 'template' });
  }

  private async readParams(): Promise<ChainParams> {
    const params = await this.opts.chain.ask({ op: 'params' });
    // Only a chain store run with stand-in rules has no parameters, and no block can be made without them.
    if (!params) throw new ServiceFailure(-32603, 'the chain store has no chain parameters');
    return params;
  }

  /**
   * Milliseconds until a block stamped `time` is no longer time-too-new: the chain store accepts it
   * once floor(clock / 1000) + maxBlockTimeAhead ≥ time.
   */
  private clockWaitMs(time: number, params: ChainParams): number {
    return (time - maxBlockTimeAhead(params.maxFutureBlockTime)) * 1000 - this.clockMs();
  }

  private logWait(time: number, params: ChainParams): void {
    // Said at most once a minute, not once per block.
    if (Date.now() - this.waitLoggedAt <= 60_000) return;
    const ahead = time - Math.floor(this.clockMs() / 1000);
    this.opts.log?.(`block times are ${ahead} s ahead of the clock (at most ${maxBlockTimeAhead(params.maxFutureBlockTime)} s allowed): mining waits for it`);
    this.waitLoggedAt = Date.now();
  }

  /** Sleeps `ms`; resolves false, at once, when the node is shutting down. */
  private async sleep(ms: number): Promise<boolean> {
    if (this.aborted) return false;
    try {
      await delay(ms, undefined, { signal: this.abortWaits.signal });
      return true;
    } catch {
      return false;
    }
  }

  private submit(block: Block) {
    return this.opts.chain.ask({ op: 'submitBlock', raw: block.toRaw() });
  }
}
