// Browser test of the data the engine's wasm does not carry and the worker fetches when a
// run first needs it (src/worker.js): the text search's stop words (dist/stop_words.txt).
// A cold start fetches none of it; a text search then leaves the stop words out.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve, launch } from './harness.mjs';

const www = join(dirname(fileURLToPath(import.meta.url)), '..');

let site;
let browser;

before(async () => {
  site = await serve(www);
  browser = await launch(chromium, 'mqlplay-lazy-', { colorScheme: 'light' });
});

after(async () => {
  await browser?.close();
  site?.stop();
});

async function replaceText(page, id, text) {
  await page.click(`#${id} .cm-content`);
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

test('stop words are fetched on the first text search, not on a cold start', async () => {
  const page = await browser.context.newPage();
  const fetched = [];
  page.on('request', (r) => fetched.push(new URL(r.url()).pathname));
  await page.goto(`${site.origin}/favicon.svg`);
  await page.evaluate(() => localStorage.clear());
  await page.goto(`${site.origin}/?lang=en`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForSelector('#result .result pre.shell');
  assert.deepEqual(fetched.filter((p) => /stop_words|tzdata|tznames/.test(p)), [], 'a cold start fetches none');

  await replaceText(page, 'db-editor', 'db = { a: [ { _id: 1, s: "the cake" }, { _id: 2, s: "the shop" } ] }');
  const runs = await page.evaluate(() => Number(document.body.dataset.runs || 0));
  // "the" is an English stop word, neither indexed nor searched: only "cakes" matches.
  await replaceText(page, 'query-editor',
    'db.a.createIndex({ s: "text" })\ndb.a.find({ $text: { $search: "the cakes" } }, { _id: 1 })');
  await page.click('#run');
  await page.waitForFunction((k) => Number(document.body.dataset.runs || 0) > k, runs, { timeout: 20_000 });
  const result = await page.textContent('#result');
  assert.match(result, /_id: 1/);
  assert.doesNotMatch(result, /_id: 2/, 'without its stop words "the" would match both');
  assert.ok(fetched.some((p) => p.endsWith('/dist/stop_words.txt')), fetched.join(' '));
  await page.close();
});
