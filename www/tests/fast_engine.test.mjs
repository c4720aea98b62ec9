// Browser test of the fast engine (src/engine.js): the page starts on the small wasm; a
// run on a large Database text makes it fetch pkg/mqlplay_fast_bg.wasm once, and later
// runs go to a worker on that module, with the same answers. Small data never fetches
// it, and without it (offline) the small engine keeps answering.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, launch } from './harness.mjs';

const www = join(dirname(fileURLToPath(import.meta.url)), '..');
const FAST = '/pkg/mqlplay_fast_bg.wasm';

let site;
let browser;
const problems = [];

before(async () => {
  site = await serve(www);
  browser = await launch(chromium, 'mqlplay-fast-', { viewport: { width: 1366, height: 768 }, colorScheme: 'light' });
});

after(async () => {
  await browser?.close();
  site?.stop();
});

const runs = (page) => page.evaluate(() => Number(document.body.dataset.runs || 0));
const engine = (page) => page.evaluate(() => document.documentElement.dataset.engine);

async function replaceText(page, id, text) {
  await page.click(`#${id} .cm-content`);
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

async function run(page) {
  const n = await runs(page);
  await page.click('#run');
  await page.waitForFunction((k) => Number(document.body.dataset.runs || 0) >= k, n + 1, { timeout: 30_000 });
  return page.textContent('#result');
}

// About 1.2 MB of text: past the page's 1 MiB threshold.
const N = 1200;
const LARGE = `db = { c: [\n${Array.from({ length: N }, (_, i) => `  { _id: ${i}, k: ${i % 7}, s: "${'x'.repeat(1000)}" }`).join(',\n')}\n] }`;
const SCRIPT = 'db.c.countDocuments({ k: 3 })\ndb.c.aggregate([{ $group: { _id: "$k", n: { $sum: 1 } } }, { $sort: { _id: 1 } }, { $limit: 2 }])';

async function openPage(t) {
  const page = await browser.context.newPage();
  page.on('pageerror', (e) => problems.push(`${t}: ${e.message}`));
  const fetched = [];
  page.on('request', (r) => { if (new URL(r.url()).pathname === FAST) fetched.push(r.url()); });
  await page.goto(`${site.origin}/favicon.svg`);
  await page.evaluate(() => localStorage.clear());
  await page.goto(`${site.origin}/?lang=en`);
  await page.waitForSelector('body[data-ready="true"]');
  return { page, fetched };
}

test('large data switches the page to the fast engine, with the same answers', async () => {
  const { page, fetched } = await openPage('switch');
  await replaceText(page, 'query-editor', 'db.c.countDocuments()');
  await replaceText(page, 'db-editor', 'db = { c: [{ _id: 1 }, { _id: 2 }] }');
  assert.match(await run(page), /\b2\b/);
  assert.equal(await engine(page), 'small');
  assert.equal(fetched.length, 0, 'small data does not fetch the fast engine');

  await replaceText(page, 'db-editor', LARGE);
  await replaceText(page, 'query-editor', SCRIPT);
  const small = await run(page);
  assert.equal(await engine(page), 'small', 'the run that finds the data large still ran on the small engine');
  assert.match(small, /\b171\b/, small); // ids 3, 10, … below 1200
  // The fast module compiles in the background; the first run after that uses it.
  let answer = '';
  for (let i = 0; i < 20 && (await engine(page)) !== 'fast'; i++) {
    await page.waitForTimeout(250);
    answer = await run(page);
  }
  assert.equal(await engine(page), 'fast');
  assert.equal(answer, small, 'the fast engine answers as the small one');
  assert.equal(fetched.length, 1, 'fetched once');
  assert.equal(await run(page), small);
  assert.equal(fetched.length, 1);
  await page.close();
});

test('without the fast engine (offline) the small one keeps answering', async () => {
  const { page, fetched } = await openPage('offline');
  await page.route(`**${FAST}`, (route) => route.abort());
  await replaceText(page, 'db-editor', LARGE);
  await replaceText(page, 'query-editor', SCRIPT);
  const first = await run(page);
  assert.match(first, /\b171\b/, first);
  for (let i = 0; i < 3; i++) {
    await page.waitForTimeout(250);
    assert.equal(await run(page), first);
    assert.equal(await engine(page), 'small');
  }
  assert.equal(fetched.length, 1, 'one attempt, not one per run');
  await page.close();
  assert.deepEqual(problems, []);
});
