// A long result in the page: its first 100 documents at once, the rest a page
// at a time from the engine ("Show 100 more"), in every view; Copy and Download
// still give every document (the engine writes them again). Same setup as
// e2e.test.mjs; screenshots go to tests/artifacts/.
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
let context;
let browser;
const problems = [];

const runs = (page) => page.evaluate(() => Number(document.body.dataset.runs || 0));
async function waitRuns(page, n) {
  await page.waitForFunction((k) => Number(document.body.dataset.runs || 0) >= k, n, { timeout: 20_000 });
}

async function replaceText(page, id, text) {
  await page.click(`#${id} .cm-content`);
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

async function run(page, script) {
  await replaceText(page, 'query-editor', script);
  const n = await runs(page);
  await page.click('#run');
  await waitRuns(page, n + 1);
}

const N = 250;
const DB = `db = { c: [\n${Array.from({ length: N }, (_, i) => `  { _id: ${i}, n: ${i * 2} }`).join(',\n')}\n] }`;

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  site = await serve(www);
  origin = site.origin;
  browser = await launch(chromium, 'mqlplay-paging-', { viewport: { width: 1366, height: 768 }, colorScheme: 'light' });
  context = browser.context;
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
});

after(async () => {
  await browser?.close();
  site?.stop();
});

const count = (page) => page.textContent('#result .result .result-count');
const shownIds = (page, sel) => page.$$eval(sel, (els) => els.map((e) => e.textContent));

test('a long result shows its first page, then more on request, in every view', async () => {
  const page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${origin}/`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.click('[data-view="shell"]');
  await replaceText(page, 'db-editor', DB);
  await run(page, 'db.c.find().sort({ _id: 1 })\ndb.c.countDocuments()');
  assert.equal(await count(page), `100 of ${N} documents shown`);
  const first = await page.textContent('#result .result:nth-of-type(1) > pre.shell');
  assert.match(first, /_id: 99,/);
  assert.doesNotMatch(first, /_id: 100,/);
  const more = '#result .result:nth-of-type(1) .result-more';
  assert.equal(await page.textContent(more), 'Show 100 more');
  await page.click(more);
  await page.waitForFunction(() => /200 of/.test(document.querySelector('#result .result .result-count').textContent));
  let rows = await shownIds(page, '#result .result:nth-of-type(1) .result-more-docs .doc');
  assert.equal(rows.length, 100);
  assert.match(rows[0], /_id: 100,/);
  assert.match(rows[99], /_id: 199,/);
  await page.click(more);
  await page.waitForFunction((n) => document.querySelector('#result .result .result-count').textContent === `${n} of ${n} documents shown`, N);
  assert.ok(await page.isHidden(more), 'nothing more to show');
  rows = await shownIds(page, '#result .result:nth-of-type(1) .result-more-docs .doc');
  assert.equal(rows.length, N - 100);
  assert.match(rows.at(-1), new RegExp(`_id: ${N - 1},`));
  // The second result is whole.
  assert.equal((await page.textContent('#result .result:nth-of-type(2) pre.shell')).trim(), String(N));
  await page.locator('#result .result:nth-of-type(1) .result-pager').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, 'paging-shell.png') });
  // Another view redraws the pages already fetched, in its own form.
  await page.click('[data-view="ejson"]');
  rows = await shownIds(page, '#result .result:nth-of-type(1) .result-more-docs .doc');
  assert.equal(rows.length, N - 100);
  assert.deepEqual(JSON.parse(rows[0]), { _id: 100, n: 200 });
  await page.click('[data-view="tree"]');
  assert.equal(await count(page), `${N} of ${N} documents shown`);
  await page.click('[data-view="shell"]');
  // Copy gives the whole result as mongosh prints it; Download every document.
  await page.evaluate(() => { document.getElementById('status').textContent = ''; });
  await page.click('#result .result:nth-of-type(1) .result-tool:has-text("Copy")');
  await page.waitForFunction(() => /Copied/.test(document.getElementById('status').textContent));
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(copied, new RegExp(`_id: ${N - 1},`));
  assert.ok(copied.startsWith(first.trimEnd().slice(0, -1).trimEnd()), 'the shown first page begins the copy');
  const [d] = await Promise.all([page.waitForEvent('download'),
    page.click('#result .result:nth-of-type(1) .result-tool:has-text("Download")')]);
  assert.equal(JSON.parse(readFileSync(await d.path(), 'utf8')).length, N);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator('#result .result:nth-of-type(1) .result-pager').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, 'paging-phone.png') });
  // The next run's long result is paged from its own documents.
  await page.setViewportSize({ width: 1366, height: 768 });
  await run(page, 'db.c.find({ n: { $gte: 100 } }).sort({ _id: -1 })');
  assert.equal(await count(page), '100 of 200 documents shown');
  await page.click(more);
  await page.waitForFunction(() => document.querySelector('#result .result .result-count').textContent === '200 of 200 documents shown');
  rows = await shownIds(page, '#result .result:nth-of-type(1) .result-more-docs .doc');
  assert.equal(rows.length, 100);
  assert.match(rows[0], /_id: 149,/);
  assert.match(rows[99], /_id: 50,/);
  assert.deepEqual(problems, []);
  await page.close();
});
