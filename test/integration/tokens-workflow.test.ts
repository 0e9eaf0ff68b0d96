import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, removeDir, type Daemon } from '../helpers/daemon.js';
import { fromHex, toHex, fromHexReversed } from '../../src/chain/encoding/hex.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { TxIn, Outpoint } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { makeCCcond1, signCCInput } from '../../src/chain/cc/index.js';
import { currentEpochBranchId } from '../../src/chain/params/upgrades.js';
import {
  TOKENS_GLOBAL_PRIVKEY,
  TOKENS_GLOBAL_PUBKEY,
  cc1Script,
  encodeTokenTransferOpRet,
  newContextualTransaction,
} from '../../src/chain/tokens/index.js';

/**
 * Issue 6 item 9: the token workflow over HTTP against a real daemon on the dev chain (regtest ACDEV,
 * -ac_cc=2, the node key as -pubkey): create, list, info, balance, transfer, NFTs, decoded
 * transactions, komodod's error answers, double spends, hand-built thefts, a reorg and a restart.
 */

type R = Record<string, unknown>;
const KEY_B = Uint8Array.from(Buffer.alloc(32, 0x5b));
const PK_B = toHex(publicKeyFromPrivate(KEY_B, true));
const PK_C = '021a559101e355c907d9c553671044d619769a6e71d624f68bfec7d0afa6bd6a96';
const DUKE_SUPPLY = 198742000000;
const ACT = { overwinter: 1, sapling: 1 };

const ok = (r: R) => {
  assert.equal(r.result, 'success', JSON.stringify(r));
  return r;
};

test('tokens over JSON-RPC: the komodod workflow, errors, NFTs, double spends, thefts, reorg and restart', async (t) => {
  let d: Daemon | undefined;
  t.after(async () => {
    await d?.stop();
    if (d) removeDir(d.datadir);
  });
  d = await startDaemon();
  const node = d;
  const call = <T = R>(m: string, ...p: unknown[]) => node.rpc<T>(m, ...p);
  const rpcErr = async (m: string, p: unknown[]) => {
    const r = await node.rpcRaw(m, p);
    assert.ok(r.error, `${m} should fail: ${r.raw}`);
    return r.error!;
  };
  const mine = async () => (await call<string[]>('generate', 1))[0]!;
  const send = (hex: string) => call<string>('sendrawtransaction', hex);
  const balance = async (tokenid: string, pk?: string) => Number((ok(await call('tokenbalance', ...(pk ? [tokenid, pk] : [tokenid]))) as R).balance);
  const mypk = await node.nodePubkey();

  await mine(); // block 1: the premine, at the node key

  await t.test('usage, type and result-object errors as komodod answers them', async () => {
    const usage = await rpcErr('tokencreate', ['X']);
    assert.deepEqual(usage, { code: -1, message: 'tokencreate name supply [description][data]\n' });
    assert.deepEqual(await rpcErr('tokentransfer', ['a', 'b']), { code: -1, message: 'tokentransfer tokenid destpubkey amount\n' });
    assert.deepEqual(await rpcErr('tokeninfo', []), { code: -1, message: 'tokeninfo tokenid\n' });
    assert.deepEqual(await rpcErr('tokenlist', [1]), { code: -1, message: 'tokenlist\n' });
    assert.deepEqual(await rpcErr('tokenbalance', ['a', 'b', 'c']), { code: -1, message: 'tokenbalance tokenid [pubkey]\n' });
    assert.deepEqual(await rpcErr('tokenaddress', ['a', 'b']), { code: -1, message: 'tokenaddress [pubkey]\n' });
    assert.deepEqual(await rpcErr('tokencreate', [123, '1']), { code: -1, message: 'JSON value is not a string as expected' });
    assert.deepEqual(await rpcErr('tokenbalance', []), { code: -1, message: 'JSON value is not a string as expected' });

    const err = (error: string) => ({ result: 'error', error });
    assert.deepEqual(await call('tokencreate', 'NUKE', '-1987420', 'x'), err('Token supply must be positive'));
    assert.deepEqual(await call('tokencreate', 'NUKE', 'abc'), err('Token supply must be positive'));
    assert.deepEqual(await call('tokencreate', 'NUKE', 0), err('Token supply must be positive'));
    assert.deepEqual(await call('tokencreate', 'N'.repeat(33), '1'), err('Token name must not be empty and up to 32 characters'));
    assert.deepEqual(await call('tokencreate', '', '1'), err('Token name must not be empty and up to 32 characters'));
    assert.deepEqual(await call('tokencreate', 'NUKE', '1', 'd'.repeat(4097)), err('Token description must be <= 4096 characters'));
    assert.deepEqual(await call('tokencreate', 'NUKE', '1', 'd', 'zz'), err('Non-fungible data incorrect'));
    assert.deepEqual(await call('tokencreate', 'NUKE', '1', 'd', '00'.repeat(10002)), err('Non-fungible data size must be <= 10001'));
    assert.deepEqual(await call('tokencreate', 'NUKE', '0.00000002', 'd', 'f201'), err('for non-fungible tokens tokensupply should be equal to 1'));
    assert.deepEqual(await call('tokencreate', 'NUKE', '100000000'), err('cant find normal inputs'));
    assert.deepEqual(await call('tokenlist'), []);
    assert.deepEqual(await call('tokeninfo', 'deadbeef'), err('cant find tokenid'));
    assert.deepEqual(await call('tokeninfo', mypk), err('cant find tokenid'));
    assert.deepEqual(await call('tokenbalance', mypk), err('cant find tokenid'));
    assert.deepEqual(await call('tokentransfer', 'deadbeef', PK_B, '1'), err('invalid tokenid'));
    assert.deepEqual(await call('tokentransfer', 'ab'.repeat(32), PK_B, '0'), err('amount must be positive'));
    assert.deepEqual(await call('tokentransfer', 'ab'.repeat(32), PK_B, '1'), err('no token inputs'));
  });

  let duke = '';
  await t.test('DUKE: tokencreate, sendrawtransaction, mined, listed, info and balance', async () => {
    const r = ok(await call('tokencreate', 'DUKE', '1987.420', "Duke's custom token"));
    assert.deepEqual(Object.keys(r), ['result', 'hex']);
    const hex = r.hex as string;
    // A JSON number is read as its decimal text: the same transaction.
    assert.equal((ok(await node.rpc('tokencreate', 'DUKE', 1987.42, "Duke's custom token")) as R).hex, hex);
    const dec = await call<{ txid: string; vout: { value: number; scriptPubKey: { type: string; asm: string; hex: string } }[] }>('decoderawtransaction', hex);
    assert.equal(dec.vout[0]!.scriptPubKey.type, 'cryptocondition');
    assert.equal(dec.vout[0]!.scriptPubKey.hex, '2ea22c8020432de388aabcb6b4e3326351d1d815cee8be9a8d37b055cd1c0cf8782e5c50c08103120c008203000401cc');
    assert.equal(dec.vout[1]!.scriptPubKey.type, 'cryptocondition');
    assert.equal(dec.vout[1]!.value, 1987.42);
    const last = dec.vout[dec.vout.length - 1]!;
    assert.equal(last.scriptPubKey.type, 'nulldata');
    assert.match(last.scriptPubKey.asm, /^OP_RETURN f263/);
    duke = dec.txid;
    assert.deepEqual(await call('tokeninfo', duke), { result: 'error', error: 'cant find tokenid' });
    assert.equal(await send(hex), duke);
    // Funding skips outputs spent in the mempool: the premine is, and no other output is big enough.
    assert.deepEqual(await call('tokencreate', 'OTHER', '1000'), { result: 'error', error: 'cant find normal inputs' });
    assert.deepEqual(await call('tokeninfo', duke), { result: 'error', error: 'the transaction is still in mempool' });
    assert.equal(await balance(duke), 0, 'unconfirmed tokens are not counted');
    await mine();
    assert.deepEqual(await call('tokenlist'), [duke]);
    const info = await call('tokeninfo', duke);
    assert.deepEqual(info, { result: 'success', tokenid: duke, owner: mypk, name: 'DUKE', supply: DUKE_SUPPLY, description: "Duke's custom token" });
    assert.deepEqual(Object.keys(info), ['result', 'tokenid', 'owner', 'name', 'supply', 'description']);
    const b = ok(await call('tokenbalance', duke));
    assert.deepEqual(Object.keys(b), ['result', 'CCaddress', 'tokenid', 'balance']);
    assert.equal(b.balance, DUKE_SUPPLY);
    assert.equal(await balance(duke, mypk), DUKE_SUPPLY);
    const addr = ok(await call('tokenaddress'));
    assert.equal(b.CCaddress, addr['myCCAddress(Tokens)']);
    assert.deepEqual(Object.keys(addr), [
      'result', 'TokensCCAddress', 'TokensCCBalance', 'TokensNormalAddress', 'TokensNormalBalance',
      'myCCAddress(Tokens)', 'myCCbalance(Tokens)', 'myaddress', 'mybalance',
    ]);
    assert.equal(addr.TokensCCAddress, 'RAMvUfoyURBRxAdVeTMHxn3giJZCFWeha2');
    assert.equal(addr.TokensNormalAddress, 'RCNgAngYAdrfzujYyPgfbjCGNVQZzCgTad');
    assert.equal(addr.TokensCCBalance, 0.0001, 'the create marker');
    assert.equal(addr['myCCbalance(Tokens)'], 1987.42);
    const withPk = ok(await call('tokenaddress', PK_B));
    assert.deepEqual(Object.keys(withPk).slice(5, 7), ['PubkeyCCaddress(Tokens)', 'PubkeyCCbalance(Tokens)']);
    for (const [k, v] of Object.entries(withPk)) if (k.includes('ddress')) assert.match(String(v), /^R/);
  });

  await t.test('tokentransfer of 1, token-unit parsing, errors, and a transfer spent twice', async () => {
    const err = (error: string) => ({ result: 'error', error });
    assert.deepEqual(await call('tokentransfer', duke, PK_B, '-1'), err('amount must be positive'));
    assert.deepEqual(await call('tokentransfer', duke, 'zz', '1'), err('invalid destination pubkey'));
    assert.deepEqual(await call('tokentransfer', duke, PK_B, String(DUKE_SUPPLY + 1)), err('insufficient token inputs'));
    const r = ok(await call('tokentransfer', duke, PK_B, '1'));
    // atoll: "1.9" and "1abc" are 1, and a JSON number 1 is the same request.
    assert.equal((ok(await call('tokentransfer', duke, PK_B, '1.9')) as R).hex, r.hex);
    assert.equal((ok(await call('tokentransfer', duke, PK_B, 1)) as R).hex, r.hex);
    const dec = await call<{ vout: { scriptPubKey: { type: string; asm: string } }[] }>('decoderawtransaction', r.hex);
    assert.deepEqual(dec.vout.map((v) => v.scriptPubKey.type), ['cryptocondition', 'cryptocondition', 'pubkey', 'nulldata']);
    assert.match(dec.vout[3]!.scriptPubKey.asm, /^OP_RETURN f274/);
    await send(r.hex as string);
    assert.equal(await balance(duke), 0, 'our only token output is spent in the mempool');
    await mine();
    assert.equal(await balance(duke, PK_B), 1);
    assert.equal(await balance(duke), DUKE_SUPPLY - 1);

    // Two transfers built from the same state spend the same token output: the second is refused
    // while the first is in the mempool, and again once the first is mined.
    const a = ok(await call('tokentransfer', duke, PK_B, '5')).hex as string;
    const b = ok(await call('tokentransfer', duke, PK_C, '7')).hex as string;
    await send(a);
    // Token inputs spent in the mempool are not selected again.
    assert.deepEqual(await call('tokentransfer', duke, PK_C, '7'), { result: 'error', error: 'no token inputs' });
    const inMempool = await rpcErr('sendrawtransaction', [b]);
    assert.deepEqual(inMempool, { code: -26, message: '16: mempool conflict' });
    await mine();
    const inBlock = await rpcErr('sendrawtransaction', [b]);
    assert.ok(inBlock.code === -25 || inBlock.code === -26, JSON.stringify(inBlock));
    assert.equal(await balance(duke, PK_B), 6);
    assert.equal(await balance(duke, PK_C), 0);
    assert.equal(await balance(duke), DUKE_SUPPLY - 6);
  });

  await t.test('NFTs: created and shown with their data; transfers as komodod builds and validates them', async () => {
    const r = ok(await call('tokencreate', 'NFT1', '0.00000001', 'an nft', 'f201020304'));
    const nft = await send(r.hex as string);
    await mine();
    const info = await call('tokeninfo', nft);
    assert.deepEqual(info, { result: 'success', tokenid: nft, owner: mypk, name: 'NFT1', supply: 1, description: 'an nft', data: 'f201020304' });
    assert.deepEqual(Object.keys(info), ['result', 'tokenid', 'owner', 'name', 'supply', 'description', 'data']);
    const dec = await call<{ vout: { value: number; scriptPubKey: { type: string; asm: string } }[] }>('decoderawtransaction', r.hex);
    assert.equal(dec.vout[1]!.value, 0.00000001);
    assert.match(dec.vout[dec.vout.length - 1]!.scriptPubKey.asm, /^OP_RETURN f263[0-9a-f]*1105f201020304$/);
    // komodod's quirk: with NFT data f2…, AddTokenCCInputs looks at MakeTokensCCcond1(f2, f2, pk)
    // (Eval(f2) twice), while tokencreate paid MakeTokensCC1vout(f2, 1, pk) (Eval(f2) once): the
    // unit is on chain but tokenbalance finds 0 and tokentransfer finds no token inputs.
    assert.equal(await balance(nft), 0);
    assert.deepEqual(await call('tokentransfer', nft, PK_B, '1'), { result: 'error', error: 'no token inputs' });
    const byInternalOrder = (x: string, y: string) => (toHex(fromHexReversed(x)) < toHex(fromHexReversed(y)) ? -1 : 1);
    assert.deepEqual(await call('tokenlist'), [duke, nft].sort(byInternalOrder));

    // An NFT whose eval code names another module: its balance and transfer are found (the address
    // is {0x90, f2} either way), but spending it runs eval 0x90, which no module validates (komodod:
    // "validation not supported for eval code"), so the transfer never enters the mempool.
    const r2 = ok(await call('tokencreate', 'NFT2', '0.00000001', '', '9001'));
    const nft2 = await send(r2.hex as string);
    await mine();
    assert.equal((await call('tokeninfo', nft2)).data, '9001');
    assert.equal(await balance(nft2), 1);
    const tr2 = ok(await call('tokentransfer', nft2, PK_B, '1'));
    const e = await rpcErr('sendrawtransaction', [tr2.hex]);
    assert.equal(e.code, -26);
    assert.match(e.message, /^16: mandatory-script-verify-flag-failed/);
    assert.equal(await balance(nft2), 1);
    assert.equal(await balance(nft2, PK_B), 0);
  });

  await t.test('hand-built token transactions: a theft and tokens out of nothing are refused, an honest one passes', async () => {
    // B owns 6 DUKE in two outputs (1 and 5) at its single-eval address; the create marker (10000 sats
    // at the Tokens global address) is spendable by anyone: the global key is public.
    const tip = await call<number>('getblockcount');
    const ctx = { nextHeight: tip + 1, activation: ACT };
    const branchId = currentEpochBranchId(ctx.nextHeight, ACT);
    const pkB = fromHex(PK_B);
    const list = async (txid: string) => call<{ vout: { n: number; value: number; scriptPubKey: { hex: string } }[] }>('decoderawtransaction', await call<string>('getrawtransaction', txid));
    // B's 1-unit output: vout 0 of the first transfer; find it through the blocks' token outputs.
    const bScript = toHex(cc1Script(0xf2, pkB));
    let bOut: { txid: string; n: number; value: bigint } | undefined;
    for (let h = tip; h > 1 && !bOut; h--) {
      const blk = await call<{ tx: string[] }>('getblock', await call<string>('getblockhash', h));
      for (const txid of blk.tx) {
        const dec = await list(txid);
        const v = dec.vout.find((o) => o.scriptPubKey.hex === bScript);
        if (v) bOut = { txid, n: v.n, value: BigInt(Math.round(v.value * 1e8)) };
      }
    }
    assert.ok(bOut, 'B has a token output');
    const marker = { txid: duke, n: 0, value: 10000n };
    const build = (outs: TxOut[], withB: boolean, bSigner: Uint8Array = KEY_B) => {
      const tx = newContextualTransaction(ctx);
      const ins = withB ? [bOut!, marker] : [marker];
      tx.vin = ins.map((i) => new TxIn(new Outpoint(fromHexReversed(i.txid), i.n), new Uint8Array(0), 0xffffffff));
      tx.vout = outs;
      ins.forEach((i, n) => {
        const isMarker = i === marker;
        const priv = isMarker ? TOKENS_GLOBAL_PRIVKEY : bSigner;
        const pk = isMarker ? TOKENS_GLOBAL_PUBKEY : publicKeyFromPrivate(bSigner, true);
        tx.vin[n]!.scriptSig = signCCInput({ tx, nIn: n, amount: i.value, branchId, condition: makeCCcond1(0xf2, pk), privateKeys: [priv] }).scriptSig;
      });
      return toHex(tx.toRaw());
    };
    const tokenidBytes = fromHexReversed(duke);
    const opret = (pk: Uint8Array) => new TxOut(0n, encodeTokenTransferOpRet({ tokenid: tokenidBytes, pubkeys: [pk] }));

    // Tokens out of nothing: B's 1 unit plus the marker's coins become 9001 units for B.
    const inflate = build([new TxOut(9001n, cc1Script(0xf2, pkB)), opret(pkB)], true);
    const e1 = await rpcErr('sendrawtransaction', [inflate]);
    assert.equal(e1.code, -26);
    assert.match(e1.message, /^16: mandatory-script-verify-flag-failed/);
    // Theft: the marker's 10000 sats declared as DUKE tokens for B.
    const steal = build([new TxOut(9000n, cc1Script(0xf2, pkB)), opret(pkB)], false);
    const e2 = await rpcErr('sendrawtransaction', [steal]);
    assert.match(e2.message, /^16: mandatory-script-verify-flag-failed/);
    // Theft of someone's tokens: another key signs B's output (its condition is not B's).
    const other = Uint8Array.from(Buffer.alloc(32, 0x77));
    const steal2 = build([new TxOut(bOut!.value, cc1Script(0xf2, publicKeyFromPrivate(other, true))), opret(publicKeyFromPrivate(other, true))], true, other);
    const e3 = await rpcErr('sendrawtransaction', [steal2]);
    assert.match(e3.message, /^16: mandatory-script-verify-flag-failed/);
    // The honest spend of the same inputs: B's units to C, the marker's coins as the fee.
    const honest = build([new TxOut(bOut!.value, cc1Script(0xf2, fromHex(PK_C))), opret(fromHex(PK_C))], true);
    await send(honest);
    await mine();
    assert.equal(await balance(duke, PK_C), Number(bOut!.value));
  });

  await t.test('balances right after a reorg and after a restart', async () => {
    const before = { me: await balance(duke), b: await balance(duke, PK_B) };
    const tr = ok(await call('tokentransfer', duke, PK_B, '10'));
    const txid = await send(tr.hex as string);
    const h = await mine();
    assert.equal(await balance(duke, PK_B), before.b + 10);
    assert.equal(await balance(duke), before.me - 10);
    await call('invalidateblock', h);
    // The transfer is back in the mempool: B's units are unconfirmed again and ours are spent in it.
    assert.ok((await call<string[]>('getrawmempool')).includes(txid));
    assert.equal(await balance(duke, PK_B), before.b);
    assert.equal(await balance(duke), 0);
    await mine(); // the other branch, with the transfer mined again
    assert.equal(await balance(duke, PK_B), before.b + 10);
    assert.equal(await balance(duke), before.me - 10);
    const state = { list: await call('tokenlist'), info: await call('tokeninfo', duke), me: await balance(duke), b: await balance(duke, PK_B), c: await balance(duke, PK_C) };
    await node.stop();
    await node.start();
    assert.deepEqual({ list: await call('tokenlist'), info: await call('tokeninfo', duke), me: await balance(duke), b: await balance(duke, PK_B), c: await balance(duke, PK_C) }, state);
  });
});
