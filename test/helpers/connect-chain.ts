import { Block } from '../../src/chain/block/block.js';
import { BlockHeader } from '../../src/chain/block/header.js';
import { hash160 } from '../../src/chain/crypto/hash.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { p2pkhScript } from '../../src/chain/script/script.js';
import { ChainStoreLogic } from '../../src/actors/chainstore/logic.js';
import { permissiveRules } from './stub-rules.js';

/**
 * A small chain for the connect-thread tests (and their kill fixture): each block's coinbase pays an
 * address, a spend of the previous block's coinbase pays two, and a second spend, of the first one's
 * output in the same block, pays a third (so a block's index writes read what they wrote). The
 * rules refuse a block whose coinbase pays 666; one paying 777 kills the process in its checks
 * when CONNECT_KILL_777 is set (the kill fixture's; a restarted store takes that block up and connects it).
 */
export const BITS = 0x200f0f0f;
const pay = (tag: number) => p2pkhScript(hash160(Uint8Array.of(tag, 1, 2, 3)));

function coinbase(height: number, value: bigint): Transaction {
  const tx = new Transaction();
  tx.vin.push(new TxIn(Outpoint.null(), Uint8Array.of(0x03, height & 0xff, (height >> 8) & 0xff, 0), 0xffffffff));
  tx.vout.push(new TxOut(value, pay(height % 7)));
  return tx;
}

function makeBlock(prev: Block | null, txs: Transaction[], time: number): Block {
  const h = new BlockHeader();
  h.prevHash = prev ? prev.hash() : new Uint8Array(32);
  h.time = time;
  h.bits = BITS;
  const b = new Block(h, txs);
  b.updateMerkleRoot();
  return b;
}

export const genesis = makeBlock(null, [coinbase(0, 50n)], 1_600_000_000);

/** `n` blocks after `from` (at height `fromHeight`); `coinbaseValue` of the last one (666: invalid, 777: kills). */
export function chain(from: Block, fromHeight: number, n: number, lastCoinbase = 1000n): Block[] {
  const out: Block[] = [];
  let prev = from;
  for (let i = 1; i <= n; i++) {
    const h = fromHeight + i;
    const txs = [coinbase(h, i === n ? lastCoinbase : 1000n)];
    if (prev !== genesis) {
      const spend = new Transaction();
      spend.vin.push(new TxIn(new Outpoint(prev.txs[0]!.hash(), 0), Uint8Array.of(0x51), 0xffffffff));
      spend.vout.push(new TxOut(600n, pay(h % 5)), new TxOut(399n, pay(h % 3)));
      const again = new Transaction();
      again.vin.push(new TxIn(new Outpoint(spend.hash(), 1), Uint8Array.of(0x51), 0xffffffff));
      again.vout.push(new TxOut(398n, pay(h % 4)));
      txs.push(spend, again);
    }
    const b = makeBlock(prev, txs, 1_600_000_000 + h);
    out.push(b);
    prev = b;
  }
  return out;
}

export const rules = permissiveRules(genesis, BITS, (block) => {
  const v = block.txs[0]!.vout[0]!.value;
  if (v === 666n) throw Object.assign(new Error('bad'), { rejectCode: 16, reason: 'bad-cb-amount' });
  if (v === 777n && process.env.CONNECT_KILL_777) {
    // Long enough for the connect thread to have written the block's effects (uncommitted).
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
    process.kill(process.pid, 'SIGKILL');
  }
});

/** A chain store over `dir`; with `connectThread`, once its connect thread has loaded. */
export async function openStore(dir: string, connectThread: boolean, logs?: string[]): Promise<ChainStoreLogic> {
  const s = new ChainStoreLogic({ dir, rules, now: () => 1_700_000_000, connectThread, ...(logs ? { log: (m: string) => logs.push(m) } : {}) });
  await s.load();
  if (connectThread) {
    // The thread loads in the background; blocks connect on the chain store's thread until it has.
    const c = (s as unknown as { connector?: { usable: boolean } }).connector!;
    for (let i = 0; !c.usable; i++) {
      if (i === 3000) throw new Error('the connect thread did not load');
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  return s;
}

/** The whole chain state: every coin, address, spent and tx index row, the tip and the value pools. */
export function chainState(s: ChainStoreLogic) {
  return {
    tip: s.index.tip.hash,
    coins: [...s.indexes.allCoins()].map(({ txid, n, coin }) => `${txid}:${n} ${coin.value} ${coin.height} ${coin.coinbase}`),
    address: [...s.indexes.allAddressRows()],
    index: [...s.indexes.allIndexRows()],
    pools: s.indexes.poolsOf(s.index.tip.hash),
  };
}

/** How many blocks the store handed to its connect thread. */
export const handed = (s: ChainStoreLogic) => (s as unknown as { connector: { handed: number } }).connector.handed;

export const submit = (s: ChainStoreLogic, b: Block) => s.write({ op: 'submitBlock', raw: b.toRaw() });
