import { setup, assign, emit } from 'xstate';

/**
 * The -gen pacer: while on, it asks for a block at once and then every interval (ac_blocktime on
 * the dev chain, where difficulty never retargets and blocks would otherwise come as fast as the CPU
 * allows). The miner does the work; the pacer only keeps time, so `setgenerate` is a state change.
 */
export const pacerMachine = setup({
  types: {
    context: {} as { intervalMs: number; startOn: boolean },
    input: {} as { intervalMs: number; on: boolean },
    events: {} as { type: 'on'; intervalMs?: number } | { type: 'off' },
    emitted: {} as { type: 'tick' },
  },
  actions: {
    tick: emit({ type: 'tick' as const }),
    setInterval: assign({
      intervalMs: ({ context, event }) => (event.type === 'on' && event.intervalMs ? event.intervalMs : context.intervalMs),
    }),
  },
  delays: {
    interval: ({ context }) => context.intervalMs,
  },
  guards: {
    startsOn: ({ context }) => context.startOn,
  },
}).createMachine({
  id: 'pacer',
  context: ({ input }) => ({ intervalMs: input.intervalMs, startOn: input.on }),
  initial: 'deciding',
  states: {
    deciding: {
      always: [{ guard: 'startsOn', target: 'on' }, { target: 'off' }],
    },
    off: {
      on: { on: { target: 'on', actions: 'setInterval' } },
    },
    on: {
      entry: 'tick',
      after: { interval: { target: 'on', reenter: true } },
      // Already on: no block at once (komodod's setgenerate restarts its threads on the block in
      // progress; a block arriving the moment the call returns would be acnode's alone).
      on: { off: 'off', on: { actions: 'setInterval' } },
    },
  },
});
