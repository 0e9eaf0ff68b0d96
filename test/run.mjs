// Runs every test/**/*.test.ts with node:test (through tsx) and checks that the whole suite ran:
// Node 20's runner only discovers .js files by itself, so the files are named here, and a run in
// which a file produced no result or fewer tests ran than test/min-tests says fails.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, mkdtempSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tmpdir } from 'node:os';

const root = join(import.meta.dirname, '..');
const only = process.argv.slice(2);

function find(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...find(p));
    else if (e.name.endsWith('.test.ts')) out.push(p);
  }
  return out.sort();
}

const files = (only.length ? only : find(join(root, 'test'))).map((f) => relative(root, f));
const countFile = join(mkdtempSync(join(tmpdir(), 'acnode-test-')), 'counts.json');
const args = [
  '--import', 'tsx', '--test', '--test-concurrency=2',
  '--test-reporter=spec', '--test-reporter-destination=stdout',
  `--test-reporter=${join(root, 'test/count-reporter.mjs')}`, `--test-reporter-destination=${countFile}`,
  ...files,
];
const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' });
const code = await new Promise((resolve) => child.on('close', resolve));

let counts = { tests: NaN, pass: NaN, fail: NaN, skipped: NaN, files: {} };
try {
  counts = JSON.parse(readFileSync(countFile, 'utf8'));
} catch {
  // No summary at all: reported below as a failed run.
}
const { tests, pass, fail, skipped } = counts;
const problems = [];
if (code !== 0) problems.push(`node --test exited with ${code}`);
if (!(fail === 0)) problems.push(`${fail} failed`);
for (const f of files) {
  if (!counts.files[join(root, f)]) problems.push(`${f} produced no result`);
}
if (!only.length) {
  const min = Number(readFileSync(join(root, 'test/min-tests'), 'utf8').trim());
  if (!(tests >= min)) problems.push(`${tests} tests ran, the suite holds at least ${min}`);
}
console.log(`\n${files.length} files, ${tests} tests: ${pass} passed, ${fail} failed, ${skipped} skipped`);
if (problems.length) {
  console.error(`test run incomplete: ${problems.join('; ')}`);
  process.exit(1);
}
