import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as H from '../../src/rpc/methods/wallet-help.js';

test("every wallet help text is its own method's (komodod's text starts with the method name)", () => {
  const env = { chainName: 'TEST', rpcPort: 1234 };
  const names = Object.keys(H).filter((k) => k.endsWith('Help'));
  assert.equal(names.length, 20);
  for (const k of names) {
    const method = k.slice(0, -'Help'.length);
    const text = (H as Record<string, (e: typeof env) => string>)[k]!(env);
    assert.match(text, new RegExp(`^${method}[ \\n]`), k);
  }
  // rpcdump.cpp's own texts (0adeeab), not opreturn_burn's, which follows their extern declarations in rpcwallet.cpp.
  assert.equal(H.dumpprivkeyHelp(env).split('\n')[0], 'dumpprivkey "t-addr"');
  assert.equal(H.importwalletHelp(env).split('\n')[0], 'importwallet "filename"');
});
