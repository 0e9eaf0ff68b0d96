import type { Block } from '../../src/chain/block/block.js';
import type { ChainRules } from '../../src/actors/chainstore/rules.js';

/**
 * Stand-in ChainRules for tests of the chain store's bookkeeping: every block's bits are `bits`, no
 * check refuses anything, and connecting a block applies each of its transactions to the coins view
 * (no fees). `onConnect` sees each block once it is applied.
 */
export function permissiveRules(genesis: Block, bits: number, onConnect?: (block: Block, height: number) => void): ChainRules {
  return {
    genesis,
    nextBits: () => bits,
    checkBlock: () => {},
    checkHeader: () => {},
    checkContextual: () => {},
    connect: (block, height, view) => {
      for (const tx of block.txs) view.apply(tx, tx.txid(), height);
      onConnect?.(block, height);
      return { fees: 0n };
    },
  };
}
