/**
 * The wallet's benchmarks (issue 5, Benchmarks), each figure beside its limit in the same run:
 * signrawtransaction's signing of a 100-input transaction against 100 bare ECDSA signatures, and
 * fundrawtransaction's latency in the wallet actor's logic with 10 against 10,000 wallet outputs
 * (coin selection must stay fast). The wallet logic runs in process over stub chain store and
 * mempool askers that answer its load scan with the outputs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hash160, sha256 } from '../src/chain/crypto/hash.js';
import { publicKeyFromPrivate, signDER } from '../src/chain/crypto/secp256k1.js';
import { toHex } from '../src/chain/encoding/hex.js';
import { devChainParams } from '../src/chain/params/chain-params.js';
import { p2pkhScript } from '../src/chain/script/script.js';
import { Transaction } from '../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../src/chain/tx/input.js';
import { TxOut } from '../src/chain/tx/output.js';
import { signVariants, TempKeyStore } from '../src/chain/tx/sign.js';
import { KeyStore } from '../src/actors/wallet/keystore.js';
import { WalletLogic } from '../src/actors/wallet/logic.js';
import { opsPerSecondAsync, type Row } from './lib.js';
import { walletScaleBenchmarks } from './wallet-scale.js';

const params = devChainParams();

function v4(): Transaction {
  return Transaction.ofFormat(params.txFormat(100));
}

function signBench(): Row[] {
  const key = sha256(new TextEncoder().encode('acnode wallet bench'));
  const spk = p2pkhScript(hash160(publicKeyFromPrivate(key, true)));
  const tx = v4();
  for (let i = 0; i < 100; i++) tx.vin.push(new TxIn(new Outpoint(sha256(Uint8Array.of(i, 1)), i)));
  tx.vout.push(new TxOut(99n * 100_000_000n, spk));
  const coins = tx.vin.map(() => ({ script: spk, value: 100_000_000n }));
  const ks = new TempKeyStore();
  ks.addKey(key, true);
  const branchId = params.currentEpochBranchId(100);
  const signOnce = () => {
    const r = signVariants([tx], coins, { keys: ks.keyLookup, hashType: 1, branchId });
    if (r.errors.length) throw new Error('bench transaction did not sign');
  };
  const digests = Array.from({ length: 100 }, (_, i) => sha256(Uint8Array.of(i, 2)));
  const bareOnce = () => {
    for (const d of digests) signDER(d, key);
  };
  // Interleaved rounds, so a busy machine slows both sides alike.
  for (let i = 0; i < 3; i++) (signOnce(), bareOnce());
  let tSign = 0;
  let tBare = 0;
  const until = performance.now() + 3000;
  let rounds = 0;
  while (performance.now() < until || rounds < 5) {
    let t = performance.now();
    signOnce();
    tSign += performance.now() - t;
    t = performance.now();
    bareOnce();
    tBare += performance.now() - t;
    rounds++;
  }
  const signTx = (rounds * 1000) / tSign;
  const bare = (rounds * 1000) / tBare;
  return [
    {
      name: 'signrawtransaction core, 100-input tx',
      value: signTx,
      unit: 'tx/s',
      limitName: '100 bare ECDSA signatures',
      limit: bare,
      target: { kind: 'min', ratio: 0.7 },
    },
  ];
}

interface Stub {
  ask<T>(body: { op: string }): Promise<T>;
}

async function fundLatency(outputs: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-bench-wallet-'));
  try {
    const keys = await KeyStore.open(dir);
    const k = await keys.nodeKey();
    const script = p2pkhScript(hash160(k.pubkey));
    const coins = Array.from({ length: outputs }, (_, i) => ({
      txid: toHex(sha256(Uint8Array.of(i & 0xff, i >> 8, 7))),
      n: 0,
      coin: { value: BigInt(50_000_000 + (i % 101) * 1_000_000), script, height: 10, coinbase: false, txVersion: 4 },
    }));
    const chain: Stub = {
      ask: async <T>(body: { op: string }) => {
        if (body.op === 'coinsByScript') return { height: 200, hash: '00'.repeat(32), mtp: 0, coins } as T;
        if (body.op === 'tx') return null as T;
        // The re-accept at load reads the tip's time (a recent tip: not initial block download).
        if (body.op === 'tip') return { height: 200, mtp: 0, time: Math.floor(Date.now() / 1000) } as T;
        throw new Error(`stub chain: ${body.op}`);
      },
    };
    const mempool: Stub = { ask: async <T>() => [] as T };
    const wallet = new WalletLogic({ chain: chain as never, mempool: mempool as never, keys, dir, params: () => params });
    await wallet.load();
    const tx = v4();
    tx.vout.push(new TxOut(3n * 100_000_000n, p2pkhScript(new Uint8Array(20).fill(3))));
    const perSec = await opsPerSecondAsync(async () => {
      await wallet.write({ op: 'fund', tx });
    }, 1500);
    await wallet.close();
    return 1000 / perSec;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function walletBenchmarks(): Promise<Row[]> {
  const rows = signBench();
  const small = await fundLatency(10);
  const big = await fundLatency(10_000);
  rows.push({
    name: 'fundrawtransaction (wallet op), 10,000 outputs',
    value: big,
    unit: 'ms',
    limitName: 'the same with 10 wallet outputs',
    limit: small,
    target: { kind: 'max', ratio: 5 },
  });
  rows.push(...(await walletScaleBenchmarks()));
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { printRows } = await import('./lib.js');
  printRows('wallet (src/actors/wallet)', await walletBenchmarks());
}


