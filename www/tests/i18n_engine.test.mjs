// What the page shows from the engine and its templates, in the reader's language.
// Editor assistance (src/assist.js, i18n/assist/<lang>.json): in Japanese and German
// the hover card of an operator and the completion list show the catalogue's kind
// labels, summaries and method descriptions, not the engine's English. A template's
// comments, the help's key names and a broken link's reason follow the language too.
// Screenshots at 1366×768 and 390×844 go to tests/artifacts/assist-i18n-*.png.
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
const WORDS = Object.fromEntries(['ja', 'de'].map((l) => [l, JSON.parse(readFileSync(join(www, 'i18n', 'assist', `${l}.json`), 'utf8'))]));
const VIEWPORTS = { laptop: { width: 1366, height: 768 }, phone: { width: 390, height: 844 } };

let site;
let browser;
const problems = [];

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  site = await serve(www);
  browser = await launch(chromium, 'mqlplay-assist-i18n-', { viewport: VIEWPORTS.laptop, colorScheme: 'light' });
});

after(async () => {
  await browser?.close();
  site?.stop();
  assert.deepEqual(problems, [], 'no console errors or warnings');
});

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

async function setQuery(page, text) {
  await page.click('#query-editor .cm-content');
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

/** Hover the middle of `word` in the Query editor. */
async function hover(page, word) {
  await page.locator('#query-editor .cm-line', { hasText: word }).waitFor();
  const box = await page.evaluate((w) => {
    const walker = document.createTreeWalker(document.querySelector('#query-editor .cm-content'), NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const i = n.textContent.indexOf(w);
      if (i < 0) continue;
      const r = document.createRange();
      r.setStart(n, i + 2);
      r.setEnd(n, i + 3);
      const b = r.getBoundingClientRect();
      return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
    }
    return null;
  }, word);
  assert.ok(box, `${word} is on screen`);
  await page.mouse.move(box.x, box.y);
}

for (const lang of ['ja', 'de']) {
  const words = WORDS[lang];
  for (const [name, viewport] of Object.entries(VIEWPORTS)) {
    test(`${lang} (${name}): the hover card shows the translated kind and summary`, async () => {
      const page = await openPage(lang, viewport);
      await setQuery(page, 'db.trades.aggregate([{ $sortByCount: "$ticker" }])');
      await hover(page, '$sortByCount');
      const card = page.locator('.cm-op-docs');
      await card.waitFor({ timeout: 10_000 });
      const text = await card.textContent();
      assert.ok(text.includes(words['op.stage.$sortByCount']), text);
      assert.ok(text.includes(words['kind.stage']), text);
      assert.ok(!text.includes('Groups by an expression'), 'no English summary');
      assert.ok(text.includes('{ $sortByCount: <expression> }'), 'the syntax stays code');
      await page.screenshot({ path: join(artifacts, `assist-i18n-${lang}-hover-${name}.png`) });
      await page.close();
    });

    test(`${lang} (${name}): the completion list shows translated kinds, summaries and methods`, async () => {
      const page = await openPage(lang, viewport);
      await setQuery(page, 'db.trades.find({ qty: { ');
      await page.keyboard.type('$g', { delay: 30 });
      const option = page.locator('.cm-tooltip-autocomplete li', { has: page.locator('.cm-completionLabel', { hasText: '$gt' }) });
      await option.first().waitFor({ timeout: 10_000 });
      await page.waitForTimeout(200); // CodeMirror's interaction delay
      const details = await page.$$eval('.cm-tooltip-autocomplete .cm-completionDetail', (els) => els.map((e) => e.textContent));
      assert.ok(details.length > 0 && details.every((d) => d === words['kind.query']), details.join(', '));
      const info = page.locator('.cm-completionInfo');
      await info.waitFor();
      const selected = await page.$eval('.cm-tooltip-autocomplete li[aria-selected] .cm-completionLabel', (e) => e.textContent);
      assert.equal(await info.textContent(), words[`op.query.${selected}`]);
      await page.screenshot({ path: join(artifacts, `assist-i18n-${lang}-operators-${name}.png`) });
      // Methods after a collection: their descriptions and the "method" label.
      await setQuery(page, 'db.trades');
      await page.keyboard.type('.findO', { delay: 30 });
      await page.locator('.cm-tooltip-autocomplete .cm-completionLabel', { hasText: 'findOne' }).first().waitFor({ timeout: 10_000 });
      await page.waitForTimeout(200);
      const methodInfo = page.locator('.cm-completionInfo');
      await methodInfo.waitFor();
      const method = await page.$eval('.cm-tooltip-autocomplete li[aria-selected] .cm-completionLabel', (e) => e.textContent);
      assert.equal(await methodInfo.textContent(), words[`method.collection.${method}`]);
      const detail = await page.$eval('.cm-tooltip-autocomplete li[aria-selected] .cm-completionDetail', (e) => e.textContent);
      assert.equal(detail, words['detail.method']);
      await page.screenshot({ path: join(artifacts, `assist-i18n-${lang}-methods-${name}.png`) });
      await page.close();
    });
  }
}

test('English shows the engine\'s own words and fetches no assist catalogue', async () => {
  const page = await openPage('en', VIEWPORTS.laptop);
  const fetched = [];
  page.on('request', (r) => { if (r.url().includes('/i18n/assist/')) fetched.push(r.url()); });
  await setQuery(page, 'db.trades.aggregate([{ $sortByCount: "$ticker" }])');
  await hover(page, '$sortByCount');
  const card = page.locator('.cm-op-docs');
  await card.waitFor({ timeout: 10_000 });
  assert.match(await card.textContent(), /stage.*Groups by an expression and counts each group/);
  assert.deepEqual(fetched, []);
  await page.close();
});

for (const [name, viewport] of Object.entries(VIEWPORTS)) {
  test(`de (${name}): a template's comments and the help's key names are German`, async () => {
    const page = await openPage('de', viewport);
    const cat = JSON.parse(readFileSync(join(www, 'i18n', 'de.json'), 'utf8'));
    await page.click('#templates');
    await page.click('[data-template="window"]');
    const script = await page.evaluate(() => [...document.querySelectorAll('#query-editor .cm-line')].map((l) => l.textContent).join('\n'));
    assert.ok(script.includes(`// ${cat['template.window.script.2']}`), script);
    assert.ok(script.includes('partitionBy: "$ticker",'), 'the code is unchanged');
    assert.ok(!script.includes('one window per ticker'), 'no English comment');
    await page.screenshot({ path: join(artifacts, `assist-i18n-de-template-${name}.png`) });
    await page.click('#help');
    const keys = await page.$$eval('#help-dialog kbd', (els) => els.map((e) => e.textContent));
    assert.ok(keys.includes('Strg') && keys.includes('Umschalt'), keys.join(' '));
    assert.ok(!keys.includes('Ctrl') && !keys.includes('Shift'), keys.join(' '));
    await page.locator('#help-dialog kbd', { hasText: 'Umschalt' }).first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(artifacts, `assist-i18n-de-help-${name}.png`) });
    await page.close();
  });
}

test('a broken link\'s reason is in the page\'s language; English keeps the engine\'s words', async () => {
  const cat = (l) => JSON.parse(readFileSync(join(www, 'i18n', `${l}.json`), 'utf8'));
  for (const [lang, viewport] of [['de', VIEWPORTS.laptop], ['ja', VIEWPORTS.phone], ['en', VIEWPORTS.laptop]]) {
    const page = await browser.context.newPage();
    await page.setViewportSize(viewport);
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    await page.addInitScript(() => localStorage.clear());
    await page.goto(`${site.origin}/?lang=${lang}#v1!!!`);
    await page.waitForSelector('body[data-ready="true"]');
    const banner = page.locator('#banner-text');
    await banner.waitFor();
    const why = cat(lang)['link.why.notLinkCharacters'];
    assert.equal(await banner.textContent(), cat(lang)['link.broken'].replace('{error}', why));
    if (lang === 'en') {
      assert.match(await banner.textContent(), /^This share link cannot be opened: some of its characters are not part of a link; was it cut short or changed when copied\? /);
    } else {
      assert.ok(!/cannot be opened|characters/.test(await banner.textContent()), 'no English');
    }
    await page.screenshot({ path: join(artifacts, `assist-i18n-${lang}-broken-link.png`) });
    await page.close();
  }
});
