import { printRows } from './bench/lib.js';
import { verifyBenchmarks } from './bench/verify.bench.js';
printRows('verify', await verifyBenchmarks());
