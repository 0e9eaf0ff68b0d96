import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ccoinsSize, compressAmount, varIntBytes, varIntLength } from '../../src/chain/tx/coins-size.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const p2pkh = (h160: string) => Buffer.from('76a914' + h160 + '88ac', 'hex');

// The two worked examples of komodod's coins.h (CCoins' serialized format).
test('CCoins size: the worked examples of coins.h, field by field and in total', () => {
  assert.equal(hex(varIntBytes(203998)), '8bb85e');
  assert.equal(hex(varIntBytes(120891)), '86af3b');
  assert.equal(hex(varIntBytes(Number(compressAmount(60000000000n)))), '8358');
  assert.equal(hex(varIntBytes(Number(compressAmount(234925952n)))), '86ef97d579');
  assert.equal(hex(varIntBytes(Number(compressAmount(110397n)))), 'bbd123');
  for (const n of [0, 1, 127, 128, 255, 16511, 16512, 203998, 2 ** 31]) assert.equal(varIntLength(n), varIntBytes(n).length, `n=${n}`);

  const ex1 = '0104835800816115944e077fe7c803cfa57f29b36bf87c1d358bb85e';
  assert.equal(ccoinsSize([{ n: 1, value: 60000000000n, script: p2pkh('816115944e077fe7c803cfa57f29b36bf87c1d35') }], 1, false, 203998), ex1.length / 2);
  const ex2 = '0109044086ef97d5790061b01caab50f1b8e9c50a5057eb43c2d9563a4eebbd123008c988f1a4a4de2161e0f50aac7f17e7f9555caa486af3b';
  const outs = [
    { n: 4, value: 234925952n, script: p2pkh('61b01caab50f1b8e9c50a5057eb43c2d9563a4ee') },
    { n: 16, value: 110397n, script: p2pkh('8c988f1a4a4de2161e0f50aac7f17e7f9555caa4') },
  ];
  assert.equal(ccoinsSize(outs, 1, true, 120891), ex2.length / 2);
  // a script no template fits: VARINT(size + 6) and the script itself
  assert.equal(ccoinsSize([{ n: 0, value: 0n, script: new Uint8Array(200) }], 4, false, 1), 1 + 1 + 1 + 2 + 200 + 1);
});
