import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createActor } from 'xstate';
import { pacerMachine } from '../../src/machines/pacer.js';

/** The -gen pacer: "on" from off ticks at once; "on" again while on does not (setgenerate true twice). */
test('pacer: on ticks at once, on again while on does not', () => {
  const pacer = createActor(pacerMachine, { input: { intervalMs: 60_000, on: false } });
  let ticks = 0;
  pacer.on('tick', () => ticks++);
  pacer.start();
  assert.equal(ticks, 0);
  pacer.send({ type: 'on' });
  assert.equal(ticks, 1);
  pacer.send({ type: 'on' });
  assert.equal(ticks, 1);
  pacer.send({ type: 'off' });
  pacer.send({ type: 'on' });
  assert.equal(ticks, 2);
  pacer.stop();
});
