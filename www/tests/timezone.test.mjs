// Browser test of the run's time zone (Run settings): local-time dates
// (`new Date(2003, 0, 7)`) are read in it and dates print in it, an unknown name is refused, and a
// share link carries it. Screenshots at 1366×768 and 390×844 go to
// tests/artifacts/tz-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
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

async function newPage(viewport = { width: 1366, height: 768 }) {
  const page = await browser.context.newPage();
  await page.setViewportSize(viewport);
  page.on('console', (m) => {
    // The browser's own favicon request (not a page response, see below) may 404.
    if (m.type() === 'error' && /404/.test(m.text())) return;
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('response', (r) => { if (r.status() === 404) problems.push(`404: ${r.url()}`); });
  return page;
}

const runs = (page) => page.evaluate(() => Number(document.body.dataset.runs || 0));
const waitRuns = (page, n) => page.waitForFunction(
  (k) => Number(document.body.dataset.runs || 0) >= k, n, { timeout: 20_000 });

async function replaceText(page, id, text) {
  await page.click(`#${id} .cm-content`);
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

async function runScript(page, script) {
  const n = await runs(page);
  await replaceText(page, 'query-editor', script);
  await page.click('#run');
  await waitRuns(page, n + 1);
  return page.textContent('#result');
}

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  site = await serve(www);
  origin = site.origin;
  browser = await launch(chromium, 'mqlplay-tz-', { colorScheme: 'light' });
});

after(async () => {
  await browser?.close();
  site?.stop();
});

test('the time zone setting reads local dates in it, refuses unknown names, and travels in links', async () => {
  const page = await newPage();
  await page.goto(`${origin}/favicon.svg`);
  await page.evaluate(() => localStorage.clear());
  await page.goto(`${origin}/?lang=en`);
  await page.waitForSelector('body[data-ready="true"]');
  const script = 'new Date(2003, 0, 7)';
  assert.match(await runScript(page, script), /2003-01-07T00:00:00\.000Z/, 'UTC by default');

  await page.click('.settings summary');
  await page.fill('#tz', 'Mars/Olympus');
  await page.dispatchEvent('#tz', 'change');
  await page.waitForSelector('#tz[aria-invalid="true"]');
  assert.match(await page.textContent('#status'), /Unknown time zone/);

  await page.fill('#tz', 'Europe/Paris');
  await page.dispatchEvent('#tz', 'change');
  await page.waitForFunction(() => !document.querySelector('#tz').hasAttribute('aria-invalid'));
  assert.match(await page.textContent('#settings-summary'), /time zone Europe\/Paris/);
  const result = await runScript(page, script);
  assert.match(result, /2003-01-06T23:00:00\.000Z/, 'midnight in Paris is 23:00 UTC');
  // A date's toString() prints in the zone, with the name V8 gives it.
  assert.match(await runScript(page, 'new Date("2024-07-01T12:00:00Z").toString()'),
    /Mon Jul 01 2024 14:00:00 GMT\+0200 \(Central European Summer Time\)/);
  await runScript(page, script);
  await page.screenshot({ path: join(artifacts, 'tz-laptop.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(artifacts, 'tz-phone.png') });
  await page.setViewportSize({ width: 1366, height: 768 });

  await page.click('#share');
  await page.waitForSelector('#share-dialog[open]');
  const url = await page.inputValue('#share-url');
  await page.close();

  const other = await newPage();
  await other.goto(url);
  await other.waitForSelector('body[data-ready="true"]');
  await waitRuns(other, 1);
  assert.equal(await other.inputValue('#tz'), 'Europe/Paris');
  assert.match(await other.textContent('#result'), /2003-01-06T23:00:00\.000Z/);
  await other.close();
  assert.deepEqual(problems, []);
});
