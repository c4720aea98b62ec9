// Editor assistance in headless Chromium: completion from the engine, and
// diagnostics while typing (no Run). See src/assist.js.
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
let browser;
const problems = [];

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  site = await serve(www);
  browser = await launch(chromium, 'mqlplay-assist-', { viewport: { width: 1366, height: 768 }, colorScheme: 'light' });
});

after(async () => {
  await browser?.close();
  site?.stop();
  assert.deepEqual(problems, [], 'no console errors or warnings');
});

async function openPage() {
  const page = await browser.context.newPage();
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  // Each test starts from the default template, not from the last test's autosave.
  await page.addInitScript(() => localStorage.clear());
  await page.goto(`${site.origin}/`);
  await page.waitForSelector('body[data-ready="true"]');
  return page;
}

async function setText(page, id, text) {
  await page.click(`#${id} .cm-content`);
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  if (text) await page.keyboard.insertText(text);
}

async function text(page, id) {
  return page.evaluate((sel) => [...document.querySelectorAll(`${sel} .cm-line`)].map((l) => {
    const copy = l.cloneNode(true);
    for (const w of copy.querySelectorAll('.cm-error-note')) w.remove();
    return copy.textContent;
  }).join('\n'), `#${id}`);
}

const runs = (page) => page.evaluate(() => Number(document.body.dataset.runs || 0));

/** Type, wait for the completion list to offer `label`, select it and accept it with Enter. */
async function accept(page, typed, label) {
  await page.keyboard.type(typed, { delay: 30 });
  const option = page.locator('.cm-tooltip-autocomplete li', { has: page.locator('.cm-completionLabel', { hasText: label }) });
  try {
    await option.first().waitFor({ timeout: 10_000 });
  } catch (e) {
    await page.screenshot({ path: join(artifacts, 'assist-failed.png') });
    throw e;
  }
  // CodeMirror ignores keys for a moment after the list opens (interactionDelay), as a person would wait.
  await page.waitForTimeout(200);
  const labels = await page.$$eval('.cm-tooltip-autocomplete .cm-completionLabel', (els) => els.map((e) => e.textContent));
  const at = labels.indexOf(label);
  assert.ok(at >= 0, `${label} offered among ${labels.join(', ')}`);
  const selected = await page.$$eval('.cm-tooltip-autocomplete li', (els) => els.findIndex((e) => e.getAttribute('aria-selected') === 'true'));
  for (let i = selected; i < at; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
}

test('db.tr completes to a collection of the Database pane', async () => {
  const page = await openPage();
  await setText(page, 'query-editor', '');
  await accept(page, 'db.tr', 'trades');
  assert.equal(await text(page, 'query-editor'), 'db.trades');
  // Then the collection's methods, with a one-line description and a skeleton.
  await page.keyboard.type('.fin', { delay: 30 });
  await page.locator('.cm-tooltip-autocomplete .cm-completionLabel', { hasText: 'findOne' }).first().waitFor();
  await page.screenshot({ path: join(artifacts, 'assist-01-methods.png') });
  await page.close();
});

test('$gro in a pipeline completes to $group with its skeleton', async () => {
  const page = await openPage();
  await setText(page, 'query-editor', 'db.trades.aggregate([{ ');
  await accept(page, '$gro', '$group');
  assert.equal(await text(page, 'query-editor'), 'db.trades.aggregate([{ $group: { _id:  }');
  // The cursor waits in the skeleton: typing goes into _id.
  await page.keyboard.type('"$tic', { delay: 30 });
  await page.locator('.cm-tooltip-autocomplete .cm-completionLabel', { hasText: '$ticker' }).first().waitFor();
  await page.screenshot({ path: join(artifacts, 'assist-02-field-path.png') });
  await page.close();
});

test('a dotted field path comes from the data', async () => {
  const page = await openPage();
  await setText(page, 'db-editor', 'db = { people: [{ _id: 1, name: "ana", address: { city: "Lyon", zip: "69001" } }] }');
  await setText(page, 'query-editor', 'db.people.find({ ');
  await accept(page, 'address.ci', 'address.city');
  assert.equal(await text(page, 'query-editor'), 'db.people.find({ "address.city": ');
  await page.close();
});

test('an unknown stage is underlined without Run, and the mark goes when fixed', async () => {
  const page = await openPage();
  const before = await runs(page);
  await setText(page, 'query-editor', 'db.trades.aggregate([{ $grop: { _id: "$ticker" } }])');
  const mark = page.locator('#query-editor .cm-lintRange-error');
  await mark.first().waitFor({ timeout: 10_000 });
  assert.equal(await mark.first().textContent(), '$grop');
  assert.equal(await runs(page), before, 'nothing ran');
  await mark.first().hover();
  const tip = page.locator('.cm-tooltip-lint');
  await tip.waitFor();
  assert.match(await tip.textContent(), /Unrecognized pipeline stage name: '\$grop'/);
  await page.screenshot({ path: join(artifacts, 'assist-03-diagnostic.png') });
  await setText(page, 'query-editor', 'db.trades.aggregate([{ $group: { _id: "$ticker" } }])');
  await page.waitForFunction(() => !document.querySelector('#query-editor .cm-lintRange-error'), null, { timeout: 10_000 });
  assert.equal(await runs(page), before, 'still nothing ran');
  await page.close();
});

test('hovering an operator shows its summary, syntax and manual link', async () => {
  const page = await openPage();
  await setText(page, 'query-editor', 'db.trades.aggregate([{ $sortByCount: "$ticker" }])');
  await page.locator('#query-editor .cm-line', { hasText: '$sortByCount' }).waitFor();
  const box = await page.evaluate(() => {
    const walker = document.createTreeWalker(document.querySelector('#query-editor .cm-content'), NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const i = n.textContent.indexOf('$sortByCount');
      if (i < 0) continue;
      const r = document.createRange();
      r.setStart(n, i + 3);
      r.setEnd(n, i + 4);
      const b = r.getBoundingClientRect();
      return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
    }
    return null;
  });
  assert.ok(box, 'the operator is on screen');
  await page.mouse.move(box.x, box.y);
  const card = page.locator('.cm-op-docs');
  await card.waitFor({ timeout: 10_000 });
  assert.match(await card.textContent(), /Groups by an expression and counts/);
  assert.equal(await card.locator('.cm-op-manual').getAttribute('title'), 'https://www.mongodb.com/docs/manual/reference/operator/aggregation/sortByCount/');
  await page.screenshot({ path: join(artifacts, 'assist-05-hover.png') });
  await page.close();
});

test('completion fits a phone screen', async () => {
  const page = await openPage();
  await page.setViewportSize({ width: 390, height: 844 });
  await setText(page, 'query-editor', 'db.trades.find({ qty: { ');
  await page.keyboard.type('$g', { delay: 30 });
  await page.locator('.cm-tooltip-autocomplete .cm-completionLabel', { hasText: '$gte' }).first().waitFor();
  await page.screenshot({ path: join(artifacts, 'assist-04-phone.png') });
  await page.close();
});
