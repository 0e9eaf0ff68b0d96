import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RpcTable } from '../../src/rpc/table.js';
import { nodeMethods } from '../../src/rpc/methods/index.js';
import type { NodeServices } from '../../src/actors/services.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';

const env = { chainName: 'ACDEV', rpcPort: 12345 };

/** The method table as the node builds it; handlers are never called here, so the services are not needed. */
function table(walletCrypted = false): RpcTable {
  const params = devChainParams();
  const node = { config: { chain: { name: 'ACDEV', regtest: true }, rpcport: 0 }, baseParams: params } as unknown as NodeServices;
  return new RpcTable({ ...env, walletCrypted: () => walletCrypted }, nodeMethods(node));
}

test('help lists every served method but the hidden ones, each under its own usage line', () => {
  // The encryption methods are listed in one wallet state each (komodod's fHelp answers): both states are read.
  for (const crypted of [false, true]) {
    const t = table(crypted);
    const list = t.help('');
    const lines = new Set(list.split('\n'));
    for (const name of t.names()) {
      const m = t.get(name)!;
      // komodod's getblockdeltas throws runtime_error("") for its help: an empty text.
      if (name === 'getblockdeltas') {
        assert.equal(t.helpText(m), '');
        continue;
      }
      const first = t.helpText(m).split('\n')[0]!;
      // Each text is the method's own: its usage line starts with its name.
      assert.ok(first === name || first.startsWith(name + ' '), `${name}: help starts with "${first}"`);
      if (m.category === 'hidden' || name.includes('label')) continue;
      const listed = !m.inHelp || m.inHelp(t.env);
      assert.equal(lines.has(first), listed, `${name} is listed by help: ${listed} (wallet encrypted: ${crypted})`);
    }
    assert.equal(lines.has('encryptwallet "passphrase"'), !crypted);
    assert.equal(lines.has('walletlock'), crypted);
    // A method that answers instead of throwing its help (komodod's getbalance64) is never listed.
    assert.equal(t.help('getbalance64'), 'help: unknown command: getbalance64');
  }
});

test('komodod\'s categories (rpc/server.cpp) for the methods named in issue 30', () => {
  const t = table();
  const want: Record<string, string> = {
    dumpprivkey: 'wallet', dumpwallet: 'wallet', importprivkey: 'wallet', importwallet: 'wallet',
    invalidateblock: 'util', reconsiderblock: 'util', createmultisig: 'util', verifymessage: 'util',
    decodeccopret: 'util', txnotarizedconfirmed: 'util', z_validateaddress: 'util',
    getnettotals: 'network', getaddednodeinfo: 'network', getdeprecationinfo: 'network',
    getblocksubsidy: 'mining', getnetworksolps: 'mining', getnetworkhashps: 'mining',
    notaries: 'blockchain', getiguanajson: 'control', getnotarysendmany: 'control',
    checknotarization: 'addressindex', getnotarypayinfo: 'addressindex',
    getaccount: 'wallet', setaccount: 'wallet', getaddressesbyaccount: 'wallet', listaccounts: 'wallet',
    getreceivedbyaccount: 'wallet', listreceivedbyaddress: 'wallet', listreceivedbyaccount: 'wallet', move: 'wallet',
    sendfrom: 'wallet', getbalance64: 'wallet', listaddressgroupings: 'wallet',
  };
  for (const [name, category] of Object.entries(want)) assert.equal(t.get(name)?.category, category, name);
  const list = t.help('');
  const util = list.slice(list.indexOf('== Util =='));
  for (const name of ['invalidateblock', 'reconsiderblock', 'createmultisig', 'z_validateaddress']) {
    assert.ok(new RegExp(`\\n${name}[ \\n]`).test(util.slice(0, util.indexOf('\n\n') + 1) + '\n'), `${name} under == Util ==`);
  }
});
