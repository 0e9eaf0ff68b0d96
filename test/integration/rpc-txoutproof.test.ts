import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startDaemon, removeDir, RpcCallError, type Daemon } from '../helpers/daemon.js';

async function rpcError(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RpcCallError) return { code: e.code, message: e.message };
    throw e;
  }
  assert.fail('expected an RPC error');
}

const sha256d = (b: Buffer): Buffer => createHash('sha256').update(createHash('sha256').update(b).digest()).digest();
const internal = (display: string): Buffer => Buffer.from(display, 'hex').reverse();

/**
 * BIP 37's merkleblock, written here from the BIP's description (levels first, then a depth-first
 * walk emitting a flag per node and a hash where the walk stops), independently of src/chain.
 */
function expectedProof(headerHex: string, txids: string[], wanted: Set<string>): string {
  const levels: Buffer[][] = [txids.map(internal)];
  while (levels[levels.length - 1]!.length > 1) {
    const l = levels[levels.length - 1]!;
    const next: Buffer[] = [];
    for (let i = 0; i < l.length; i += 2) next.push(sha256d(Buffer.concat([l[i]!, l[i + 1] ?? l[i]!])));
    levels.push(next);
  }
  const top = levels.length - 1;
  const flags: number[] = [];
  const hashes: Buffer[] = [];
  const walk = (h: number, pos: number): void => {
    const first = pos << h;
    const last = Math.min((pos + 1) << h, txids.length);
    let hit = false;
    for (let p = first; p < last; p++) if (wanted.has(txids[p]!)) hit = true;
    flags.push(hit ? 1 : 0);
    if (h === 0 || !hit) return void hashes.push(levels[h]![pos]!);
    walk(h - 1, pos * 2);
    if (pos * 2 + 1 < levels[h - 1]!.length) walk(h - 1, pos * 2 + 1);
  };
  walk(top, 0);
  const flagBytes = Buffer.alloc(Math.ceil(flags.length / 8));
  flags.forEach((f, i) => (flagBytes[i >> 3]! |= f << (i & 7)));
  const n = Buffer.alloc(4);
  n.writeUInt32LE(txids.length);
  // compact sizes below 0xfd are one byte
  return Buffer.concat([Buffer.from(headerHex, 'hex'), n, Buffer.from([hashes.length]), ...hashes, Buffer.from([flagBytes.length]), flagBytes]).toString('hex');
}

let d: Daemon;

test('gettxoutproof / verifytxoutproof: komodod\'s CMerkleBlock bytes, the txids they commit to, and errors', { timeout: 180_000 }, async (t) => {
  t.after(async () => {
    await d?.stop();
    if (d) removeDir(d.datadir);
  });
  d = await startDaemon();
  await d.rpc('generate', 1);
  const sent: string[] = [];
  for (let i = 0; i < 4; i++) sent.push(await d.rpc<string>('sendtoaddress', await d.rpc<string>('getnewaddress'), 1));
  const [hash] = await d.rpc<string[]>('generate', 1);
  const block = await d.rpc<{ tx: string[] }>('getblock', hash!);
  assert.equal(block.tx.length, 5);
  const header = await d.rpc<string>('getblockheader', hash!, false);

  // One transaction, found through the tx index.
  const one = block.tx[2]!;
  const proof1 = await d.rpc<string>('gettxoutproof', [one]);
  assert.equal(proof1, expectedProof(header, block.tx, new Set([one])));
  assert.deepEqual(await d.rpc('verifytxoutproof', proof1), [one]);
  // Several, in the named block: the txids come back in block order.
  const two = [block.tx[4]!, block.tx[0]!];
  const proof2 = await d.rpc<string>('gettxoutproof', two, hash);
  assert.equal(proof2, expectedProof(header, block.tx, new Set(two)));
  assert.deepEqual(await d.rpc('verifytxoutproof', proof2), [block.tx[0], block.tx[4]]);
  // Upper-case txids name the same transactions.
  assert.equal(await d.rpc('gettxoutproof', [one.toUpperCase()]), proof1);

  // A proof whose tree does not lead to the header's merkle root commits to nothing.
  const headerLen = header.length;
  const bad = proof1.slice(0, headerLen + 10) + (proof1[headerLen + 10] === '0' ? '1' : '0') + proof1.slice(headerLen + 11);
  assert.deepEqual(await d.rpc('verifytxoutproof', bad), []);
  // Trailing bytes are left unread, as komodod's stream leaves them.
  assert.deepEqual(await d.rpc('verifytxoutproof', proof1 + '00'), [one]);

  // Errors, in komodod's codes and words.
  assert.deepEqual(await rpcError(d.rpc('gettxoutproof', ['zz'])), { code: -8, message: 'Invalid txid zz' });
  assert.deepEqual(await rpcError(d.rpc('gettxoutproof', [one, one])), { code: -8, message: `Invalid parameter, duplicated txid: ${one}` });
  assert.deepEqual(await rpcError(d.rpc('gettxoutproof', [one], '00'.repeat(32))), { code: -5, message: 'Block not found' });
  assert.deepEqual(await rpcError(d.rpc('gettxoutproof', [one], block.tx[0])), { code: -5, message: 'Block not found' });
  assert.deepEqual(await rpcError(d.rpc('gettxoutproof', [one], await d.rpc<string>('getblockhash', 1))), {
    code: -5,
    message: '(Not all) transactions not found in specified block',
  });
  const pending = await d.rpc<string>('sendtoaddress', await d.rpc<string>('getnewaddress'), 1);
  assert.deepEqual(await rpcError(d.rpc('gettxoutproof', [pending])), { code: -5, message: 'Transaction not yet in block' });
  assert.deepEqual(await rpcError(d.rpc('gettxoutproof', 'x')), { code: -1, message: 'JSON value is not an array as expected' });
  assert.deepEqual(await rpcError(d.rpc('verifytxoutproof', 'zz')), { code: -8, message: "proof must be hexadecimal string (not 'zz')" });
  assert.deepEqual(await rpcError(d.rpc('verifytxoutproof', proof1.slice(0, 200))), { code: -32700, message: 'CBaseDataStream::read(): end of data: iostream error' });

  // A block off the active chain: the proof checks out, but komodod refuses it.
  await d.rpc('invalidateblock', hash);
  assert.deepEqual(await rpcError(d.rpc('verifytxoutproof', proof1)), { code: -5, message: 'Block not found in chain' });
  await d.rpc('reconsiderblock', hash);
  assert.deepEqual(await d.rpc('verifytxoutproof', proof1), [one]);

  // help: komodod's texts; wrong arity answers with them.
  const e = await rpcError(d.rpc('verifytxoutproof'));
  assert.equal(e.code, -1);
  assert.equal(e.message, await d.rpc<string>('help', 'verifytxoutproof'));
  assert.ok(e.message.startsWith('verifytxoutproof "proof"\n\nVerifies that a proof points to a transaction in a block'));
  assert.ok((await d.rpc<string>('help', 'gettxoutproof')).startsWith('gettxoutproof ["txid",...] ( blockhash )\n\nReturns a hex-encoded proof'));
});
