import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getOp, skipOp } from '../../src/chain/script/script.js';
import { scriptSigOpCount } from '../../src/chain/validation/sigops.js';
import { prng } from '../helpers/prng.js';

/** GetSigOpCount as a getOp loop (the counting skipOp replaced), for comparison. */
function sigOpsByGetOp(script: Uint8Array, accurate: boolean): number {
  let n = 0;
  let pc = 0;
  let last = -1;
  for (let r = getOp(script, pc); r; r = getOp(script, pc)) {
    pc = r.next;
    if (r.op === 0xac || r.op === 0xad) n++;
    else if (r.op === 0xae || r.op === 0xaf) n += accurate && last >= 0x51 && last <= 0x60 ? last - 0x50 : 20;
    last = r.op;
  }
  return n;
}

test('skipOp ends each instruction where getOp does, and fails where it does; sigop counts unchanged', () => {
  const rnd = prng(0x5c1f);
  // Opcodes weighted towards pushes (every PUSHDATA form, truncated or not), checksigs and small numbers.
  const pool = [0x00, 0x01, 0x02, 0x14, 0x21, 0x4b, 0x4c, 0x4d, 0x4e, 0x51, 0x53, 0x60, 0x76, 0xa9, 0x88, 0xac, 0xad, 0xae, 0xaf, 0x6a, 0xff];
  let malformed = 0;
  for (let i = 0; i < 20_000; i++) {
    const len = Math.floor(rnd() * 40);
    const script = new Uint8Array(len);
    for (let k = 0; k < len; k++) script[k] = rnd() < 0.5 ? pool[Math.floor(rnd() * pool.length)]! : Math.floor(rnd() * 256);
    for (let pc = 0; pc <= len; pc++) {
      const r = getOp(script, pc);
      const next = skipOp(script, pc);
      assert.equal(next, r ? r.next : -1, `script ${Buffer.from(script).toString('hex')} at ${pc}`);
      if (!r && pc < len) malformed++;
    }
    for (const accurate of [false, true]) assert.equal(scriptSigOpCount(script, accurate), sigOpsByGetOp(script, accurate), `sigops of ${Buffer.from(script).toString('hex')}`);
  }
  assert.ok(malformed > 1000, `malformed pushes were met (${malformed})`);
});
