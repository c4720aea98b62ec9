// The engine's own messages (engine.* in i18n/<lang>.json) in the reader's language:
// in German and Japanese a run's error in the result pane, the status line and the
// editor's note, a Database pane error, and a diagnostic shown without Run read in
// that language, while MongoDB's own message stays English. Screenshots at
// 1366×768 and 390×844 go to tests/artifacts/messages-*.png.
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
const CATALOGUES = Object.fromEntries(['en', 'ja', 'de'].map((l) => [l, JSON.parse(readFileSync(join(www, 'i18n', `${l}.json`), 'utf8'))]));
const VIEWPORTS = { laptop: { width: 1366, height: 768 }, phone: { width: 390, height: 844 } };

let site;
let browser;
const problems = [];

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  site = await serve(www);
  browser = await launch(chromium, 'mqlplay-messages-', { viewport: VIEWPORTS.laptop, colorScheme: 'light' });
});

after(async () => {
  await browser?.close();
  site?.stop();
  assert.deepEqual(problems, [], 'no console errors or warnings');
});

/** A catalogue sentence with its parameters filled (the text before the first unfilled one). */
function sentence(lang, key, params = {}) {
  let s = CATALOGUES[lang][key];
  assert.ok(s, `${lang} ${key}`);
  for (const [k, v] of Object.entries(params)) s = s.replaceAll(`{${k}}`, () => v);
  return s;
}

async function openPage(lang, viewport) {
  const page = await browser.context.newPage();
  await page.setViewportSize(viewport);
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.addInitScript(() => localStorage.clear());
  await page.goto(`${site.origin}/?lang=${lang}`);
  await page.waitForSelector('body[data-ready="true"]');
  return page;
}

async function setText(page, editor, text) {
  await page.click(`#${editor} .cm-content`);
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

const runs = (page) => page.evaluate(() => Number(document.body.dataset.runs) || 0);

async function run(page) {
  const n = await runs(page);
  await page.click('#run');
  await page.waitForFunction((k) => (Number(document.body.dataset.runs) || 0) > k, n);
  await page.waitForSelector('#result .error');
  return page.textContent('#result .error');
}

for (const lang of ['de', 'ja']) {
  for (const [name, viewport] of Object.entries(VIEWPORTS)) {
    test(`${lang} (${name}): the engine's own errors read in the page's language`, async () => {
      const page = await openPage(lang, viewport);
      // An unknown collection method: result pane, status line and the editor's note.
      await setText(page, 'query-editor', 'db.trades.frobnicate()');
      const error = await run(page);
      const translated = sentence(lang, 'engine.collectionMethod', { name: 'frobnicate' }).split('{list}')[0];
      assert.ok(error.includes(translated), `${lang}: ${error}`);
      assert.ok(!error.includes('is not supported in mqlplay'), `${lang}: English left: ${error}`);
      assert.ok(error.includes('(CommandNotSupported)'), 'the codeName stays MongoDB\'s');
      assert.ok((await page.textContent('#status')).includes(translated), 'status line');
      if (name === 'laptop') {
        assert.ok((await page.textContent('#query-editor .cm-error-note')).includes(translated), 'editor note');
      }
      await page.screenshot({ path: join(artifacts, `messages-${lang}-${name}-method.png`) });

      // A phrase inside a sentence is translated too: the $setUnion accumulator.
      await setText(page, 'query-editor', 'db.trades.aggregate([{ $group: { _id: null, s: { $setUnion: "$tags" } } }])');
      const part = sentence(lang, 'engine.part.accumulator', { name: '$setUnion' });
      const whole = sentence(lang, 'engine.notSupported', { what: part });
      assert.ok((await run(page)).includes(whole), `${lang}: ${whole}`);

      // The Database pane's configuration error.
      await setText(page, 'db-editor', 'db = { trades: [1] }');
      await setText(page, 'query-editor', 'db.trades.find()');
      const dbError = await run(page);
      const notDoc = sentence(lang, 'engine.configNotDocument', { type: 'Int32' });
      assert.ok(dbError.includes(notDoc), `${lang}: ${dbError}`);
      await page.screenshot({ path: join(artifacts, `messages-${lang}-${name}-database.png`) });

      // MongoDB's own words stay as MongoDB writes them.
      await setText(page, 'db-editor', 'db = { trades: [{ _id: 1 }] }');
      await setText(page, 'query-editor', 'db.trades.find({ $foo: 1 })');
      assert.match(await run(page), /unknown top level operator: \$foo/);
      await page.close();
    });
  }

  test(`${lang}: a diagnostic shown without Run reads in the page's language`, async () => {
    const page = await openPage(lang, VIEWPORTS.laptop);
    const before = await runs(page);
    await setText(page, 'query-editor', 'db.trades.find({ a: { $text: 1 } })');
    const mark = page.locator('#query-editor .cm-lintRange-error');
    await mark.first().waitFor({ timeout: 10_000 });
    await mark.first().hover();
    const tip = page.locator('.cm-tooltip-lint');
    await tip.waitFor();
    const expected = sentence(lang, 'engine.notSupported', { what: '$text' });
    assert.ok((await tip.textContent()).includes(expected), `${lang}: ${await tip.textContent()}`);
    assert.equal(await runs(page), before, 'nothing ran');
    await page.screenshot({ path: join(artifacts, `messages-${lang}-diagnostic.png`) });
    await page.close();
  });
}

for (const lang of ['de', 'ja']) {
  for (const [name, viewport] of Object.entries(VIEWPORTS)) {
    test(`${lang} (${name}): the reader's errors and the text/geo "not supported" errors read in the page's language`, async () => {
      const page = await openPage(lang, viewport);
      // The reader: JavaScript's own words stay English inside our sentence.
      await setText(page, 'query-editor', 'db.trades.find({ ) })');
      const reader = await run(page);
      const expected = sentence(lang, 'engine.expectedPropertyName', { js: "Unexpected token ')'" });
      assert.ok(reader.includes(expected), `${lang}: ${reader}`);
      assert.ok(!reader.includes('expected a property name'), `${lang}: English left: ${reader}`);
      assert.ok((await page.textContent('#status')).includes(expected), 'status line');
      await page.screenshot({ path: join(artifacts, `messages-${lang}-${name}-reader.png`) });

      // Extended JSON in the Database pane: the sentence and the reason inside it.
      await setText(page, 'db-editor', 'db = { trades: [{ a: { $oid: 1 } }] }');
      await setText(page, 'query-editor', 'db.trades.find()');
      const ejson = await run(page);
      const why = sentence(lang, 'engine.part.ejsonString', { key: '$oid' });
      assert.ok(ejson.includes(sentence(lang, 'engine.extendedJson', { why })), `${lang}: ${ejson}`);

      // Text search: a language only MongoDB Enterprise has.
      await setText(page, 'db-editor', 'db = { trades: [{ _id: 1, s: "a" }] }');
      await setText(page, 'query-editor',
        'db.trades.createIndex({ s: "text" })\ndb.trades.find({ $text: { $search: "a", $language: "arabic" } })');
      const text = await run(page);
      const language = sentence(lang, 'engine.part.enterpriseLanguage', { name: 'arabic' });
      assert.ok(text.includes(sentence(lang, 'engine.notSupported', { what: language })), `${lang}: ${text}`);
      assert.ok(!text.includes('Enterprise only'), `${lang}: English left: ${text}`);

      // Geo: the strict-winding CRS.
      await setText(page, 'query-editor', 'db.trades.find({ loc: { $geoWithin: { $geometry: { type: "Polygon", '
        + 'coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]], crs: { type: "name", properties: '
        + '{ name: "urn:x-mongodb:crs:strictwinding:EPSG:4326" } } } } } })');
      const geo = await run(page);
      const crs = sentence(lang, 'engine.notSupported', { what: sentence(lang, 'engine.part.strictWinding') });
      assert.ok(geo.includes(crs), `${lang}: ${geo}`);
      await page.screenshot({ path: join(artifacts, `messages-${lang}-${name}-geo.png`) });
      await page.close();
    });
  }
}
