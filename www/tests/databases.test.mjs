// Browser test of a script that uses several databases (issue 27, item 15):
// `$out` into another database and `use name` put collections in other
// databases, and the result pane's changed collections, their diff and the
// list of every collection (Copy, Download) name each by its namespace.
// Screenshots at 1366×768 and 390×844 go to tests/artifacts/databases-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  pageSession, newPage, openFresh, screenshot, replaceText, runAndWait, runWith, clipboardAfter, downloaded,
} from './page.mjs';

const session = pageSession('mqlplay-databases-', { viewport: { width: 1366, height: 768 } }, { clipboard: true });
const shot = (page, name) => screenshot(page, `databases-${name}`);

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

test('collections of several databases are shown, diffed and exported by namespace', async () => {
  const page = await newPage(session);
  await openFresh(page, session.origin);
  await runWith(page, DB, SCRIPT);

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
  await replaceText(page, 'query-editor', 'db.trades.deleteOne({ _id: 3 })');
  await runAndWait(page);
  assert.deepEqual(await page.$$eval('#result .collection .coll-name', (els) => els.map((e) => e.textContent)), ['trades']);
  await page.close();
  assert.deepEqual(session.problems, []);
});
