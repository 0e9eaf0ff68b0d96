import type { Database } from 'lmdb';
import { isP2PKH } from '../../chain/script/script.js';
import { scriptAddressKey } from '../../chain/assets/conditions.js';
import type { Block } from '../../chain/block/block.js';
import { parsePayToCryptoCondition } from '../../chain/script/standard.js';
import type { ChainDb } from './chaindb.js';
import type { BlockUndo } from './coins.js';
import { hashKey } from './lmdb-keys.js';
import { fromHex } from '../../chain/encoding/hex.js';

/** komodo_newcoins leaves out outputs paying this address (KMD's old burn address), on every chain. */
const SKIPPED_ADDRESS_KEY = 'k' + '29cfc6376255a78451eeb4b129ed8eacffa2feef'; // RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPVMY
const SKIPPED_HASH = fromHex(SKIPPED_ADDRESS_KEY.slice(1));

/** One block's komodo_newcoins figures, and their running totals from height 1 up to it. */
export interface SupplyRecord {
  newcoins: bigint;
  zfunds: bigint;
  sprout: bigint;
  supply: bigint;
  totalZfunds: bigint;
  totalSprout: bigint;
}

/**
 * ExtractDestination succeeds (and the address is not the skipped one): komodod counts the output.
 * A CC script always has a destination (ExtractDestination's IsPayToCryptoCondition fallback).
 */
function counted(script: Uint8Array): boolean {
  // P2PKH, nearly every output, read off its template (what the solver finds in it: the key hash).
  if (isP2PKH(script)) {
    for (let i = 0; i < 20; i++) if (script[3 + i] !== SKIPPED_HASH[i]) return true;
    return false;
  }
  const key = scriptAddressKey(script);
  if (key !== null) return key !== SKIPPED_ADDRESS_KEY;
  return parsePayToCryptoCondition(script) !== null;
}

/**
 * komodo_newcoins (komodo_bitcoind.cpp) for one block: Σ of the outputs with a destination, less Σ of
 * the inputs of its non-coinbase transactions (their values from the undo data: what GetTransaction
 * reads), and the shielded pools' changes. An output without a destination (OP_RETURN, nonstandard)
 * is never counted, so its value leaves the supply.
 */
export function newCoins(block: Block, spent: BlockUndo['spent']): { newcoins: bigint; zfunds: bigint; sprout: bigint } {
  let vouts = 0n;
  let zfunds = 0n;
  let sprout = 0n;
  // Indexed loops: this runs once per block, unoptimised, where for…of allocates.
  for (let i = 0; i < block.txs.length; i++) {
    const tx = block.txs[i]!;
    for (let k = 0; k < tx.vout.length; k++) {
      const o = tx.vout[k]!;
      if (counted(o.script)) vouts += o.value;
    }
    for (let k = 0; k < tx.joinSplits.length; k++) {
      const js = tx.joinSplits[k]!;
      zfunds += js.vpubOld - js.vpubNew;
      sprout += js.vpubOld - js.vpubNew;
    }
    zfunds -= tx.valueBalance;
  }
  let vins = 0n;
  for (let k = 0; k < spent.length; k++) vins += spent[k]!.coin.value;
  return { newcoins: vouts - vins, zfunds, sprout };
}

/**
 * komodo_coinsupply's figures kept as running totals (komodod caches each block's in CBlockIndex and
 * walks back to genesis on every call): `supply`: block hash (internal) → newcoins, zfunds, sprout and
 * the three totals up to it, i64 LE each. Written and removed inside the block's write transaction.
 */
export class SupplyIndex {
  private readonly db: Database<Buffer, Buffer>;

  constructor(chain: ChainDb) {
    this.db = chain.index('supply');
  }

  get(blockHash: string): SupplyRecord | undefined {
    const v = this.db.get(hashKey(blockHash));
    if (!v) return undefined;
    const at = (k: number) => v.readBigInt64LE(8 * k);
    return { newcoins: at(0), zfunds: at(1), sprout: at(2), supply: at(3), totalZfunds: at(4), totalSprout: at(5) };
  }

  /** Inside a write transaction. `parentHash`: null for a block at height 1 (genesis is never counted). */
  connect(block: Block, blockHash: string, parentHash: string | null, spent: BlockUndo['spent']): void {
    const before = parentHash === null ? undefined : this.get(parentHash);
    if (parentHash !== null && !before) throw new Error(`coin supply of ${blockHash}: its parent ${parentHash} has no record`);
    const d = newCoins(block, spent);
    const v = Buffer.alloc(48);
    [d.newcoins, d.zfunds, d.sprout, (before?.supply ?? 0n) + d.newcoins, (before?.totalZfunds ?? 0n) + d.zfunds, (before?.totalSprout ?? 0n) + d.sprout].forEach((x, k) => v.writeBigInt64LE(x, 8 * k));
    this.db.putSync(hashKey(blockHash), v);
  }

  /** Inside a write transaction. */
  disconnect(blockHash: string): void {
    this.db.removeSync(hashKey(blockHash));
  }

  clear(): void {
    this.db.clearSync();
  }
}
