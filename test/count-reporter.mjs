// A node:test reporter that counts results per file, so test/run.mjs can check that every test
// file really ran (Node 20's TAP output does not name files).
export default async function* countReporter(source) {
  const files = {};
  let tests = 0, pass = 0, fail = 0, skipped = 0;
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const d = event.data;
    // Only leaf tests count; suites and file wrappers report details.type === 'suite'.
    if (d.details?.type === 'suite') continue;
    const f = d.file ?? '?';
    files[f] = (files[f] ?? 0) + 1;
    tests++;
    if (d.skip || d.todo) skipped++;
    else if (event.type === 'test:pass') pass++;
    else fail++;
  }
  yield JSON.stringify({ tests, pass, fail, skipped, files }) + '\n';
}
