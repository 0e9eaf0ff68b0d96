import type { Block } from '../../chain/block/block.js';
import { toHexReversed } from '../../chain/encoding/hex.js';
import { isUnspendable } from '../../chain/script/script.js';
import type { Transaction } from '../../chain/tx/transaction.js';
import type { TxIn } from '../../chain/tx/input.js';
import type { PoolValues } from './protocol.js';

/**
 * komodod's per-block value pools (ConnectBlock/ReceivedBlockTransactions): one block's deltas
 * (chain supply, transparent, sprout, sapling, burned), or null where a spent value cannot be known.
 * `genesis`: the block has no parent (its outputs are the supply). `valueIn`: the value of an input's
 * coin, given the block's earlier transactions (by txid), undefined when it cannot be known.
 */
export function poolDeltaOf(
  block: Block,
  txids: readonly string[],
  genesis: boolean,
  valueIn: (input: TxIn, earlier: ReadonlyMap<string, Transaction>) => bigint | undefined,
): PoolValues | null {
  const d: PoolValues = { supply: 0n, transparent: 0n, sprout: 0n, sapling: 0n, burned: 0n };
  const earlier = new Map<string, Transaction>();
  let known = true;
  // Indexed loops: this runs once per block, unoptimised, where forEach and for…of allocate.
  for (let i = 0; i < block.txs.length; i++) {
    const tx = block.txs[i]!;
    let shieldedOut = 0n;
    let shieldedIn = 0n;
    for (let k = 0; k < tx.joinSplits.length; k++) {
      const js = tx.joinSplits[k]!;
      d.sprout += js.vpubOld - js.vpubNew;
      shieldedOut += js.vpubOld;
      shieldedIn += js.vpubNew;
    }
    d.sapling -= tx.valueBalance;
    if (tx.valueBalance < 0n) shieldedOut -= tx.valueBalance;
    else shieldedIn += tx.valueBalance;
    let out = shieldedOut;
    for (let k = 0; k < tx.vout.length; k++) {
      const o = tx.vout[k]!;
      out += o.value;
      if (isUnspendable(o.script)) d.burned += o.value;
      else d.transparent += o.value;
    }
    if (genesis) {
      d.supply = out; // the genesis block: its outputs (komodod assigns, per transaction)
    } else if (tx.isCoinbase()) {
      d.supply += out;
    } else {
      let value = shieldedIn;
      for (let k = 0; k < tx.vin.length; k++) {
        const v = valueIn(tx.vin[k]!, earlier);
        if (v === undefined) {
          known = false;
          continue;
        }
        value += v;
        d.transparent -= v;
      }
      d.supply -= value - out;
    }
    earlier.set(txids[i]!, tx);
  }
  return known ? d : null;
}

/** valueIn over a block's undo data (the coins it spent, in input order). */
export function undoValues(spent: readonly { coin: { value: bigint } }[]): (input: TxIn) => bigint | undefined {
  let u = 0;
  return () => spent[u++]?.coin.value;
}

/** valueIn from the previous transactions: the block's earlier ones, else `lookup`. */
export function lookupValues(lookup: (txid: string) => Transaction | undefined): (input: TxIn, earlier: ReadonlyMap<string, Transaction>) => bigint | undefined {
  return (input, earlier) => {
    const ptxid = toHexReversed(input.prevout.hash);
    return (earlier.get(ptxid) ?? lookup(ptxid))?.vout[input.prevout.index]?.value;
  };
}

/** The order pools are stored in: supply, transparent, sprout, sapling, burned. */
export function poolsArray(p: PoolValues): bigint[] {
  return [p.supply, p.transparent, p.sprout, p.sapling, p.burned];
}

export function poolsFrom(xs: readonly bigint[]): PoolValues {
  return { supply: xs[0]!, transparent: xs[1]!, sprout: xs[2]!, sapling: xs[3]!, burned: xs[4]! };
}

export function addPools(a: PoolValues, b: PoolValues): PoolValues {
  return { supply: a.supply + b.supply, transparent: a.transparent + b.transparent, sprout: a.sprout + b.sprout, sapling: a.sapling + b.sapling, burned: a.burned + b.burned };
}
