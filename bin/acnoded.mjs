#!/usr/bin/env -S node --max-semi-space-size=64
// `npx acnoded`: runs bin/acnoded.ts through tsx in this process. A 64 MB young generation (V8's
// default grows to 16): under a burst of transactions, 4x fewer scavenges roughly halved the mempool
// thread's GC pauses and cost ~6% less CPU a transaction (measured; probably because each scavenge
// also walks the big indexes' pointers to new objects). package.json's start and bench scripts, and
// the daemons the tests and bench spawn, run with the same flag.
import { register } from 'tsx/esm/api';

register();
await import('./acnoded.ts');
