// Browser tests of the page in each language (www/i18n/, src/i18n.js): `?lang=`
// sets <html lang> and the labels; the browser's languages on a first visit; the
// picker's choice is saved; a share link carries the sharer's language unless the
// opener chose one; the bucket tutorial in Japanese and the sensor tutorial in German
// (panel labels from the catalogue; the overlay's prose when its file exists); no
// button overflows and the phone layout holds. Screenshots at 1366×768 and 390×844
// go to tests/artifacts/i18n-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve, launch } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const www = join(here, '..');
const artifacts = join(here, 'artifacts');
const LANGS = ['en', 'pt-BR', 'ja', 'ko', 'de'];
const NAMES = { en: 'English', 'pt-BR': 'Português', ja: '日本語', ko: '한국어', de: 'Deutsch' };
const readJson = (p) => JSON.parse(readFileSync(join(www, p), 'utf8'));
const CAT = Object.fromEntries(LANGS.map((l) => [l, readJson(`i18n/${l}.json`)]));
const LAPTOP = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };

/** What the page fills in: `{name}` from params (no plural forms needed here). */
const fill = (s, p) => s.replace(/\{(\w+)\}/g, (_, k) => String(p[k]));

/** The overlay of a tutorial, when the translators' file is there. */
function overlay(lang, id) {
  const p = join(www, 'tutorials', 'i18n', lang, `${id}.json`);
  return existsSync(p) ? JSON.parse(readFileSync(p, 'utf8')) : null;
}

let site;
let origin;
let browser;
const problems = [];

async function newPage(viewport = LAPTOP, languages = null) {
  const page = await browser.context.newPage();
  await page.setViewportSize(viewport);
  if (languages) {
    await page.addInitScript((l) => {
      Object.defineProperty(navigator, 'languages', { get: () => l });
      Object.defineProperty(navigator, 'language', { get: () => l[0] });
    }, languages);
  }
  page.on('console', (m) => {
    // A tutorial without its translation yet is a 404 the page expects (English is shown).
    if (m.type() === 'error' && /404/.test(m.text())) return;
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  return page;
}

/** A first visit: nothing saved in this browser. */
async function fresh(page, path = '/') {
  await page.goto(`${origin}/favicon.svg`);
  await page.evaluate(() => localStorage.clear());
  await page.goto(`${origin}${path}`);
  await page.waitForSelector('body[data-ready="true"]');
}

const shot = (page, name) => page.screenshot({ path: join(artifacts, `i18n-${name}.png`) });
const htmlLang = (page) => page.evaluate(() => document.documentElement.lang);
const text = (page, sel) => page.evaluate((s) => document.querySelector(s)?.textContent.trim(), sel);

/** Buttons whose text is wider than the button, and whether the page scrolls sideways. */
function overflow(page) {
  return page.evaluate(() => ({
    buttons: [...document.querySelectorAll('button, select, summary')]
      // A line cut with an ellipsis on purpose (the run settings' summary) is not an overflow.
      .filter((b) => b.offsetParent !== null && getComputedStyle(b).textOverflow !== 'ellipsis')
      .filter((b) => b.scrollWidth > b.clientWidth + 1)
      .map((b) => `${b.id || b.className}: ${b.textContent.trim().slice(0, 40)}`),
    pageWidth: document.documentElement.scrollWidth,
  }));
}

async function layoutHolds(page, viewport, what) {
  const o = await overflow(page);
  assert.deepEqual(o.buttons, [], `${what}: buttons overflow`);
  assert.ok(o.pageWidth <= viewport.width, `${what}: the page is ${o.pageWidth}px wide`);
}

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  site = await serve(www);
  origin = site.origin;
  browser = await launch(chromium, 'mqlplay-i18n-', { colorScheme: 'light' });
});

after(async () => {
  await browser?.close();
  site?.stop();
});

for (const lang of LANGS) {
  test(`?lang=${lang}: <html lang>, labels, picker, layout on a laptop and a phone`, async () => {
    const page = await newPage(LAPTOP, ['en-US']);
    await fresh(page, `/?lang=${lang}`);
    const c = CAT[lang];
    assert.equal(await htmlLang(page), lang);
    assert.equal(await text(page, '#run span[data-i18n]'), c['toolbar.run']);
    assert.equal(await text(page, '#db-title'), c['pane.database']);
    assert.equal(await text(page, '#tutorials span'), c['tutorial.menu']);
    assert.equal(await page.getAttribute('#help', 'aria-label'), c['toolbar.helpLabel']);
    assert.equal(await page.title(), c['page.title']);
    assert.equal(await page.inputValue('#lang'), lang);
    const options = await page.$$eval('#lang option', (os) => os.map((o) => [o.value, o.textContent]));
    assert.deepEqual(Object.fromEntries(options), NAMES, 'each language named in itself');
    // The run's own line is in the language too.
    const word = { en: 'result', 'pt-BR': 'resultado', ja: '件の結果', ko: '결과', de: 'Ergebnis' }[lang];
    assert.ok((await text(page, '#run-info')).includes(word), await text(page, '#run-info'));
    await layoutHolds(page, LAPTOP, `${lang} laptop`);
    await shot(page, `${lang}-laptop`);
    await page.setViewportSize(PHONE);
    await page.waitForTimeout(100);
    await layoutHolds(page, PHONE, `${lang} phone`);
    await shot(page, `${lang}-phone`);
    // CodeMirror's own search panel speaks the language too.
    await page.click('#query-editor .cm-content');
    await page.keyboard.press('Control+f');
    await page.waitForSelector('.cm-search');
    assert.equal(await page.getAttribute('.cm-search input[name=search]', 'placeholder'), c['editor.find']);
    await page.keyboard.press('Escape');
    // The help dialog: translated text with MongoDB's names kept.
    await page.click('#help');
    assert.equal(await text(page, '#help-title'), c['help.title']);
    assert.match(await text(page, '#help-dialog'), /explain\("executionStats"\)/);
    await shot(page, `${lang}-help-phone`);
    await page.close();
  });
}

test('a first visit follows navigator.languages; the picker\'s choice is saved; ?lang= wins', async () => {
  const page = await newPage(LAPTOP, ['ko-KR', 'en-US']);
  await fresh(page);
  assert.equal(await htmlLang(page), 'ko');
  assert.equal(await text(page, '#run span[data-i18n]'), CAT.ko['toolbar.run']);
  await page.selectOption('#lang', 'de');
  await page.waitForFunction(() => document.documentElement.lang === 'de');
  assert.equal(await text(page, '#run span[data-i18n]'), CAT.de['toolbar.run']);
  assert.equal(await text(page, '#tutorials span'), CAT.de['tutorial.menu']);
  assert.equal(await page.evaluate(() => localStorage.getItem('mqlplay.lang')), 'de');
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await htmlLang(page), 'de', 'the saved choice beats the browser\'s languages');
  await page.goto(`${origin}/?lang=pt-BR`);
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await htmlLang(page), 'pt-BR');
  assert.equal(await text(page, '#db-title'), CAT['pt-BR']['pane.database']);
  // A language the page does not speak: English.
  const other = await newPage(LAPTOP, ['fr-FR', 'fr']);
  await fresh(other);
  assert.equal(await htmlLang(other), 'en');
  await other.close();
  await page.close();
});

test('a share link carries the sharer\'s language; the opener\'s saved choice overrides it', async () => {
  const sharer = await newPage(LAPTOP, ['en-US']);
  await fresh(sharer, '/?lang=ja');
  await sharer.click('#share');
  await sharer.waitForSelector('#share-dialog[open]');
  const url = await sharer.inputValue('#share-url');
  assert.match(url, /#v1/);
  assert.ok(!url.includes('lang='), 'the language is inside the link state');
  assert.equal(await text(sharer, '#share-title'), CAT.ja['share.title']);
  await sharer.close();

  const opener = await newPage(LAPTOP, ['en-US']);
  await fresh(opener);
  assert.equal(await htmlLang(opener), 'en');
  await opener.goto(url);
  await opener.reload(); // a fresh load of the link, as a click in a chat app would
  await opener.waitForSelector('body[data-ready="true"]');
  assert.equal(await htmlLang(opener), 'ja', 'no choice of their own: the sharer\'s language');
  assert.equal(await opener.evaluate(() => localStorage.getItem('mqlplay.lang')), null, 'not saved as a choice');

  await opener.goto(`${origin}/favicon.svg`);
  await opener.evaluate(() => { localStorage.clear(); localStorage.setItem('mqlplay.lang', 'ko'); });
  await opener.goto(url);
  await opener.waitForSelector('body[data-ready="true"]');
  assert.equal(await htmlLang(opener), 'ko', 'their own saved choice wins');
  await opener.close();
});

test('a link\'s language is only ever one of the five', async () => {
  const link = (lang) => `${origin}/#v1${deflateRawSync(Buffer.from(JSON.stringify({
    db: 'db = { t: [ { _id: 1 } ] }', script: 'db.t.find()', now: 0, seed: 0, view: 'shell', lang,
  }))).toString('base64url')}`;
  const page = await newPage(LAPTOP, ['en-US']);
  let dialogs = 0;
  page.on('dialog', (d) => { dialogs++; d.dismiss(); });
  for (const [lang, shown] of [['de', 'de'], ['fr', 'en'], ['<img src=x onerror=alert(1)>', 'en'], ['', 'en']]) {
    await fresh(page, '/');
    await page.goto(link(lang));
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    assert.equal(await htmlLang(page), shown, JSON.stringify(lang));
    assert.equal(await page.inputValue('#lang'), shown);
    assert.equal(await page.$$eval('#result .result', (rs) => rs.length), 1, 'the link itself opened');
  }
  assert.equal(dialogs, 0);
  await page.close();
});

/**
 * Step through tutorial `id` in `lang` with Next: the panel's labels come from the
 * catalogue, the prose from the overlay when it exists; one walkthrough is run and
 * passes, one exercise's starter is run and gets its feedback in the language.
 */
async function stepThrough(lang, id, viewport, name) {
  const c = CAT[lang];
  const english = readJson(`tutorials/${id}.json`);
  const o = overlay(lang, id);
  const page = await newPage(viewport, ['en-US']);
  await fresh(page, `/?lang=${lang}`);
  await page.click('#tutorials');
  await page.waitForSelector(`#tutorials-menu [data-tutorial="${id}"]`);
  await page.click(`#tutorials-menu [data-tutorial="${id}"]`);
  await page.waitForSelector('#tutorial:not([hidden])');
  const total = english.steps.length;
  assert.equal(await text(page, '#tutorial-next'), c['tutorial.next']);
  assert.equal(await text(page, '#tutorial-prev'), c['tutorial.prev']);
  assert.equal(await page.getAttribute('#tutorial-close', 'aria-label'), c['tutorial.close']);
  assert.equal(await text(page, '#tutorial-solution'), c['tutorial.showSolution']);
  if (o) assert.equal(await text(page, '#tutorial-title'), o.title.replace(/[`*]/g, ''));
  let ranWalkthrough = false;
  let ranExercise = false;
  for (let n = 1; n <= total; n++) {
    if (n > 1) await page.click('#tutorial-next');
    await page.waitForFunction((s) => document.getElementById('tutorial-pos').textContent === s,
      fill(c['tutorial.stepOf'], { n, total }));
    const step = english.steps[n - 1];
    const exercise = step.kind === 'exercise';
    assert.equal(await text(page, '#tutorial-kind'), c[exercise ? 'tutorial.exercise' : 'tutorial.walkthrough']);
    if (o?.steps?.[n - 1]) {
      assert.equal(await text(page, '#tutorial-step-title'), o.steps[n - 1].title.replace(/[`*]/g, ''));
    }
    assert.equal(await text(page, '#tutorial-check'), c[exercise ? 'tutorial.writeAndRun' : 'tutorial.runToCheck']);
    if ((!exercise && !ranWalkthrough) || (exercise && !ranExercise)) {
      const runs = await page.evaluate(() => Number(document.body.dataset.runs || 0));
      await page.click('#run');
      await page.waitForFunction((k) => Number(document.body.dataset.runs || 0) > k, runs, { timeout: 20_000 });
      await page.waitForSelector('#tutorial-check[data-ok]');
      const verdict = await text(page, '#tutorial-check');
      if (exercise) {
        // The starter is not the answer: "Not yet:" and a sentence from the catalogue.
        if (await page.getAttribute('#tutorial-check', 'data-ok') === 'false') {
          assert.ok(verdict.includes(c['tutorial.fail']), verdict);
          ranExercise = true;
          if (await page.isVisible('#tutorial-hint')) {
            await page.click('#tutorial-hint');
            await page.waitForSelector('#tutorial-hints:not([hidden])');
          }
          await shot(page, `${name}-feedback`);
        }
      } else {
        assert.equal(await page.getAttribute('#tutorial-check', 'data-ok'), 'true', verdict);
        assert.ok(verdict.includes(c['tutorial.passWalkthrough']), verdict);
        ranWalkthrough = true;
      }
    }
    await layoutHolds(page, viewport, `${name} step ${n}`);
  }
  assert.ok(ranWalkthrough && ranExercise, 'a walkthrough and an exercise were judged');
  await shot(page, name);
  await page.close();
}

test('the bucket tutorial in Japanese, on a laptop and a phone', async () => {
  await stepThrough('ja', 'bucket', LAPTOP, 'ja-bucket-laptop');
  await stepThrough('ja', 'bucket', PHONE, 'ja-bucket-phone');
});

test('the sensor tutorial in German, on a laptop and a phone', async () => {
  await stepThrough('de', 'sensor-upsert', LAPTOP, 'de-sensor-laptop');
  await stepThrough('de', 'sensor-upsert', PHONE, 'de-sensor-phone');
});

/** An overlay as the translators write one (README), made from the English file with marked prose. */
function fakeOverlay(id) {
  const english = readJson(`tutorials/${id}.json`);
  const labelsOf = (x, acc = []) => {
    if (Array.isArray(x)) x.forEach((v) => labelsOf(v, acc));
    else if (x && typeof x === 'object') {
      for (const [k, v] of Object.entries(x)) if (k === 'label') acc.push(v); else labelsOf(v, acc);
    }
    return acc;
  };
  const lines = (v) => (Array.isArray(v) ? v : [v]);
  return {
    title: 'バケットパターン（試験）',
    summary: '要約（試験）',
    steps: english.steps.map((s, i) => {
      const o = { title: `見出し ${i + 1}`, text: [`本文 ${i + 1}`] };
      if (s.hints) o.hints = s.hints.map((_, j) => `ヒント本文 ${i + 1}.${j + 1}`);
      const labels = labelsOf(s.check);
      if (labels.length) o.labels = Object.fromEntries(labels.map((l) => [l, `ラベル「${l}」`]));
      if (s.kind === 'exercise') o.script = lines(s.script).map((l) => (l.trim().startsWith('//') ? '// 日本語の説明' : l));
      return o;
    }),
  };
}

test('a tutorial overlay: its prose, hints, starter and labels; English again after switching back', async () => {
  const english = readJson('tutorials/bucket.json');
  const fake = fakeOverlay('bucket');
  const page = await newPage(LAPTOP, ['en-US']);
  await page.route('**/tutorials/i18n/ja/bucket.json', (route) => route.fulfill({ json: fake }));
  await fresh(page, '/?lang=ja');
  await page.click('#tutorials');
  await page.waitForSelector('#tutorials-menu [data-tutorial="bucket"]');
  assert.equal(await text(page, '#tutorials-menu [data-tutorial="bucket"] .tut-menu-title'), fake.title);
  await page.click('#tutorials-menu [data-tutorial="bucket"]');
  await page.waitForSelector('#tutorial:not([hidden])');
  assert.equal(await text(page, '#tutorial-title'), fake.title);
  assert.equal(await text(page, '#tutorial-step-title'), '見出し 1');
  assert.equal(await text(page, '#tutorial-text'), '本文 1');
  // Step 9, an exercise whose check uses labels: the starter's comments are the overlay's.
  await page.click('.tut-steps-box summary');
  await page.click('#tutorial-steps [data-step="9"]');
  await page.waitForFunction(() => document.getElementById('tutorial-step-title').textContent === '見出し 9');
  const saved = await page.evaluate(() => new Promise((r) => setTimeout(() => r(JSON.parse(localStorage.getItem('mqlplay.state.v1'))), 400)));
  assert.ok(saved.script.includes('// 日本語の説明'), saved.script);
  assert.ok(!saved.script.includes('// Add the trade'), 'the English comment is replaced');
  await page.click('#tutorial-hint');
  assert.equal(await text(page, '#tutorial-hints li'), 'ヒント本文 9.1');
  const runs = await page.evaluate(() => Number(document.body.dataset.runs || 0));
  await page.click('#run');
  await page.waitForFunction((k) => Number(document.body.dataset.runs || 0) > k, runs, { timeout: 20_000 });
  await page.waitForSelector('#tutorial-check[data-ok="false"]');
  const feedback = await text(page, '#tutorial-check .tut-feedback');
  assert.ok(feedback.includes('ラベル「'), `a check label in the overlay's words: ${feedback}`);
  await shot(page, 'ja-overlay');
  // Back to English: the English prose, and the panel's labels.
  await page.selectOption('#lang', 'en');
  await page.waitForFunction((t) => document.getElementById('tutorial-title').textContent === t, english.title.replace(/[`*]/g, ''));
  assert.equal(await text(page, '#tutorial-step-title'), english.steps[8].title.replace(/[`*]/g, ''));
  assert.equal(await text(page, '#tutorial-next'), CAT.en['tutorial.next']);
  assert.ok(!(await text(page, '#tutorial-check')).includes('ラベル「'), 'the verdict is redrawn in English');
  await page.close();
});

test('no console errors or page errors', () => {
  assert.deepEqual(problems, []);
});
