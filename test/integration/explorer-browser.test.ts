import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, removeDir, type Daemon } from '../helpers/daemon.js';

/**
 * The explorer page in a real browser (Debian's chromium, driven by playwright-core): a daemon with
 * -inspect, the page open, a block mined and a token created, transferred and offered over RPC; the
 * page shows each of them, the token's holders and order book, and an actor's state changing. Any
 * request to a host other than the node fails the test. A screenshot stays in the test's temp folder.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

interface R {
  result?: string;
  hex?: string;
  [k: string]: unknown;
}

async function pageUrl(d: Daemon): Promise<string> {
  const end = Date.now() + 30_000;
  for (;;) {
    const m = /explorer page at (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{48})/.exec(d.log.join('\n'));
    if (m) return m[1]!;
    if (Date.now() > end) throw new Error(`no explorer line:\n${d.log.join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const skip = !CHROMIUM && process.env.CI !== 'true' ? 'no Chromium found: install it with `apt-get install -y chromium` (or set CHROMIUM_PATH)' : false;

test('explorer page in Chromium: blocks, transactions, tokens, order book and actors, live and local only', { skip, timeout: 240_000 }, async (t) => {
  assert.ok(CHROMIUM, 'CI must have Chromium: .ci/run installs it');
  const { chromium } = await import('playwright-core');
  const dir = mkdtempSync(join(tmpdir(), 'acnode-browser-'));
  const d = await startDaemon(['-gen=0', '-inspect']);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  t.after(async () => {
    await browser.close();
    await d.stop();
    removeDir(d.datadir);
  });
  const url = new URL(await pageUrl(d));
  const foreign: string[] = [];
  const problems: string[] = [];
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.host !== url.host) foreign.push(r.url());
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  // Nothing may leave the machine even if the page tried.
  await page.route((u) => u.host !== url.host, (route) => route.abort());
  const ok = (r: R) => {
    assert.equal(r.result, 'success', JSON.stringify(r));
    return r.hex!;
  };
  // The tests' TypeScript has no DOM types: the page's location is reached through globalThis.
  const go = (hash: string) => page.evaluate((h) => ((globalThis as unknown as { location: { hash: string } }).location.hash = h), hash);
  const mine = async () => (await d.rpc<string[]>('generate', 1))[0]!;

  await page.goto(url.href);
  await page.waitForSelector('#blocks .block-row');

  // A new block appears in the latest blocks.
  const block = await mine();
  await page.locator(`#blocks a[href="#/block/${block}"]`).first().waitFor({ timeout: 20_000 });

  // A token, its transfer and an ask.
  const tokenid = await d.rpc<string>('sendrawtransaction', ok(await d.rpc<R>('tokencreate', 'EXPL', '10', 'explorer test')));
  await mine();
  const other = await d.rpc<string>('getnewaddress');
  const otherPub = (await d.rpc<{ pubkey: string }>('validateaddress', other)).pubkey;
  const transfer = await d.rpc<string>('sendrawtransaction', ok(await d.rpc<R>('tokentransfer', tokenid, otherPub, '250')));
  await mine();
  const ask = await d.rpc<string>('sendrawtransaction', ok(await d.rpc<R>('tokenask', '100', tokenid, '0.5')));
  // The ask waits in the mempool until the next block.
  await go('#/mempool');
  await page.locator(`#mempool a[href="#/tx/${ask}"]`).waitFor({ timeout: 20_000 });
  await mine();

  // The transfer, with its inputs linked to the outputs they spend.
  await page.goto(`${url.origin}/t/${url.searchParams.get('token')}/#/tx/${transfer}`);
  await page.locator('#txid', { hasText: transfer }).waitFor();
  const inputs = await page.locator('.io a[href^="#/tx/"]').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  assert.ok(inputs.includes(`#/tx/${tokenid}`), `an input links the token creation: ${inputs.join(' ')}`);

  // The token: listed, its holders (the owner and the transfer's receiver), its order book.
  await go('#/tokens');
  await page.locator('#tokens .token-row', { hasText: 'EXPL' }).waitFor();
  await go(`#/token/${tokenid}`);
  await page.locator('#supply', { hasText: '1000000000' }).waitFor();
  await page.locator('#orderbook .order-row').first().waitFor();
  assert.ok(await page.locator(`#orderbook a[href="#/tx/${ask}"]`).count(), 'the ask is in the order book');
  const holders = await page.locator('#holders .holder-row').allInnerTexts();
  const units = holders.map((h) => Number(h.split(/\s+/).pop())).sort((a, b) => a - b);
  // 250 to the receiver, 100 on the ask, the rest with the owner.
  assert.deepEqual(units, [100, 250, 1_000_000_000 - 350], holders.join(' | '));
  await page.screenshot({ path: join(dir, 'token.png'), fullPage: true });
  // A holder's CC address, from the address index.
  await page.locator('#holders .holder-row').filter({ has: page.locator('td:last-child', { hasText: /^250$/ }) }).locator('a').click();
  await page.locator('h3', { hasText: 'unspent (1)' }).waitFor({ timeout: 20_000 }).catch(async () => {
    assert.fail(`address view: ${await page.locator('main').innerText()}`);
  });

  // The search box takes a height.
  await page.fill('#search', '1');
  await page.press('#search', 'Enter');
  await page.locator('h2', { hasText: 'Block 1' }).waitFor();

  // Actors: each listed with its state; the chain store's state changes as a block connects.
  await go('#/actors');
  await page.locator('#actors .actor-row[data-actor="chainStore"]').waitFor();
  await page.locator('svg.chart[data-machine="service"] .state.lit').first().waitFor();
  const height = await d.rpc<number>('getblockcount');
  const before = await page.locator('#actors .actor-row[data-actor="chainStore"] .ctx').innerText();
  await mine();
  await page.locator('#actors .actor-row[data-actor="chainStore"] .ctx', { hasText: `height: ${height + 1},` }).waitFor({ timeout: 20_000 }).catch(async () => {
    assert.fail(`chainStore's context did not move past ${height}: ${before} → ${await page.locator('#actors .actor-row[data-actor="chainStore"] .ctx').innerText()}`);
  });
  await page.selectOption('#actor-filter', 'chainStore');
  await page.locator('#sequence tr.state td.hit', { hasText: 'ready.working' }).first().waitFor({ timeout: 20_000 });

  // Plots draw.
  await go('#/plots');
  await page.locator('#plot-interval canvas').waitFor();
  await page.locator('#plot-txs canvas').waitFor();
  await page.locator('#plot-mempool canvas').waitFor();
  await page.screenshot({ path: join(dir, 'plots.png'), fullPage: true });

  await go('#/actors');
  await page.locator('svg.chart').first().waitFor();
  const shot = join(dir, 'explorer.png');
  await page.screenshot({ path: shot, fullPage: true });
  assert.ok(statSync(shot).size > 10_000);
  t.diagnostic(`screenshot: ${shot}`);

  assert.deepEqual(foreign, [], 'requests to other hosts');
  assert.deepEqual(problems, []);
});
