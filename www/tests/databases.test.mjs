// Browser test of a script that uses several databases (issue 27, item 15):
// `$out` into another database and `use name` put collections in other
// databases, and the result pane's changed collections, their diff and the
// list of every collection (Copy, Download) name each by its namespace.
// Screenshots at 1366×768 and 390×844 go to tests/artifacts/databases-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve, launch } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const www = join(here, '..');
const artifacts = join(here, 'artifacts');

let site;
let origin;
let browser;
const problems = [];

const shot = (page, name) => page.screenshot({ path: join(artifacts, `databases-${name}.png`) });
const runs = (page) => page.evaluate(() => Number(document.body.dataset.runs || 0));
const waitRuns = (page, n) => page.waitForFunction(
  (k) => Number(document.body.dataset.runs || 0) >= k, n, { timeout: 20_000 });

async function replaceText(page, id, text) {
  await page.click(`#${id} .cm-content`);
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

async function clipboardAfter(page, click) {
  await page.evaluate(() => { document.getElementById('status').textContent = ''; });
  await page.click(click);
  await page.waitForFunction(() => /Copied/.test(document.getElementById('status').textContent));
  return page.evaluate(() => navigator.clipboard.readText());
}

async function downloaded(page, click) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.click(click)]);
  return { name: d.suggestedFilename(), text: readFileSync(await d.path(), 'utf8') };
}

const DB = `db = { trades: [
  { _id: 1, ticker: "MDB", qty: 120 },
  { _id: 2, ticker: "AAPL", qty: 40 },
  { _id: 3, ticker: "MDB", qty: 60 }
], prices: [ { _id: "MDB", last: 251.3 } ] }`;

const SCRIPT = `db.trades.updateOne({ _id: 2 }, { $set: { qty: 45 } })
db.trades.aggregate([
  { $group: { _id: "$ticker", qty: { $sum: "$qty" } } },
  { $sort: { _id: 1 } },
  { $out: { db: "reporting", coll: "summary" } }
])
use shop
db.orders.insertOne({ _id: 1, total: 5 })`;

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  site = await serve(www);
  origin = site.origin;
  browser = await launch(chromium, 'mqlplay-databases-', { viewport: { width: 1366, height: 768 }, colorScheme: 'light' });
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
});

after(async () => {
  await browser?.close();
  site?.stop();
});

test('collections of several databases are shown, diffed and exported by namespace', async () => {
  const page = await browser.context.newPage();
  page.on('console', (m) => {
    // The browser's own favicon request may 404 (as in timezone.test.mjs).
    if (m.type() === 'error' && /404/.test(m.text())) return;
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(`${origin}/favicon.svg`);
  await page.evaluate(() => localStorage.clear());
  await page.goto(`${origin}/?lang=en`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.click('[data-view="shell"]');
  await replaceText(page, 'db-editor', DB);
  await replaceText(page, 'query-editor', SCRIPT);
  const n = await runs(page);
  await page.click('#run');
  await waitRuns(page, n + 1);

  // The changed collections, each under its namespace; the configured one diffed against its start.
  const changed = await page.$$eval('#result .collection .coll-name', (els) => els.map((e) => e.textContent));
  assert.deepEqual(changed, ['test.trades', 'reporting.summary', 'shop.orders']);
  const trades = page.locator('#result .collection', { has: page.locator('.coll-name', { hasText: /^test\.trades$/ }) });
  assert.match(await trades.locator('summary').first().textContent(), /1 changed/);
  assert.match(await trades.locator('.doc-changed').textContent(), /qty: 40 → 45/);
  const summary = page.locator('#result .collection', { has: page.locator('.coll-name', { hasText: /^reporting\.summary$/ }) });
  assert.match(await summary.locator('summary').first().textContent(), /new collection/i);
  assert.equal(await summary.locator('.doc-inserted').count(), 2);

  // Every collection, Copy and Download by namespace; the unchanged one too.
  const all = await page.$$eval('#result .all-collection .coll-name', (els) => els.map((e) => e.textContent));
  assert.deepEqual(all, ['test.trades', 'test.prices', 'reporting.summary', 'shop.orders']);
  const file = await downloaded(page, '#result .all-collection[data-collection="reporting.summary"] .result-tool:has-text("Download")');
  assert.equal(file.name, 'reporting.summary.json');
  assert.deepEqual(JSON.parse(file.text), [
    { _id: 'AAPL', qty: { $numberInt: '45' } },
    { _id: 'MDB', qty: { $numberInt: '180' } },
  ]);
  const prices = await clipboardAfter(page, '#result .all-collection[data-collection="test.prices"] .result-tool:has-text("Copy")');
  assert.match(prices, /last: 251\.3/);
  const orders = await clipboardAfter(page, '#result .all-collection[data-collection="shop.orders"] .result-tool:has-text("Copy")');
  assert.match(orders, /total: 5/);

  await page.locator('#result .collections').scrollIntoViewIfNeeded();
  await shot(page, 'laptop');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator('#result .collections').scrollIntoViewIfNeeded();
  await shot(page, 'phone');
  await page.locator('#result .all-collections').scrollIntoViewIfNeeded();
  await shot(page, 'phone-all');
  await page.setViewportSize({ width: 1366, height: 768 });

  // A script that stays in one database keeps plain names.
  const m = await runs(page);
  await replaceText(page, 'query-editor', 'db.trades.deleteOne({ _id: 3 })');
  await page.click('#run');
  await waitRuns(page, m + 1);
  assert.deepEqual(await page.$$eval('#result .collection .coll-name', (els) => els.map((e) => e.textContent)), ['trades']);
  await page.close();
  assert.deepEqual(problems, []);
});
