// Browser tests of the step-through tutorials (www/tutorials/): every step of
// every tutorial is opened from the Tutorials menu, run, and must show the tick;
// then progress, Reset, share links and a wrong outcome's differences.
// Same setup as e2e.test.mjs: Debian's Chromium through playwright-core, www/
// served by tools/serve.py. Screenshots go to tests/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve, launch } from './harness.mjs';
import { parseBlocks } from '../tutorials/markdown.js';

const here = dirname(fileURLToPath(import.meta.url));
const www = join(here, '..');
const artifacts = join(here, 'artifacts');

const readJson = (name) => JSON.parse(readFileSync(join(www, 'tutorials', name), 'utf8'));
const INDEX = readJson('index.json').tutorials;
const TUTORIALS = INDEX.map((t) => readJson(t.file));

let site;
let origin;
let context;
let browser;
const requests = [];
const problems = [];



async function newPage() {
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  return page;
}

const shot = (page, name) => page.screenshot({ path: join(artifacts, `${name}.png`) });
const runs = (page) => page.evaluate(() => Number(document.body.dataset.runs || 0));
async function waitRuns(page, n) {
  await page.waitForFunction((k) => Number(document.body.dataset.runs || 0) >= k, n, { timeout: 20_000 });
}

/** Do `action`, wait for the run it causes, and return the step panel's verdict. */
async function verdictAfter(page, action) {
  const n = await runs(page);
  await action();
  await waitRuns(page, n + 1);
  await page.waitForSelector('#tutorial-check[data-ok]');
  return {
    ok: await page.getAttribute('#tutorial-check', 'data-ok') === 'true',
    text: await page.textContent('#tutorial-check'),
  };
}

/** Run the editors' contents with the Run button. */
const runStep = (page) => verdictAfter(page, () => page.click('#run'));

/** The page's autosaved state (the editors' text, even lines CodeMirror has not drawn). */
async function savedState(page) {
  await page.waitForTimeout(400); // autosave is debounced by 300 ms
  return page.evaluate(() => JSON.parse(localStorage.getItem('mqlplay.state.v1')));
}

const join2 = (v) => (Array.isArray(v) ? v.join('\n') : v);

/** Open a tutorial from the menu: its step is loaded and run. */
async function openFromMenu(page, id) {
  await page.click('#tutorials');
  await page.waitForSelector(`#tutorials-menu [data-tutorial="${id}"]`);
  const verdict = await verdictAfter(page, () => page.click(`#tutorials-menu [data-tutorial="${id}"]`));
  await page.waitForSelector('#tutorial:not([hidden])');
  return verdict;
}

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  site = await serve(www);
  origin = site.origin;
  browser = await launch(chromium, 'mqlplay-tutorials-', {
    viewport: { width: 1440, height: 900 },
    colorScheme: 'light',
  });
  context = browser.context;
  context.on('request', (r) => requests.push(r.url()));
});

after(async () => {
  await browser?.close();
  site?.stop();
});

test('the Markdown subset: paragraphs, lists, code and bold, nothing else', () => {
  const blocks = parseBlocks(['Use `find()` **now**', 'and <b>then</b>.', '', '- one', '- two', '', '1. first']);
  assert.deepEqual(blocks.map((b) => b.type), ['p', 'ul', 'ol']);
  assert.deepEqual(blocks[0].inlines.map((n) => n.type), ['text', 'code', 'text', 'strong', 'text', 'text']);
  // Markup is text: it reaches the page as a text node, never as HTML.
  assert.equal(blocks[0].inlines.at(-1).text, 'and <b>then</b>.');
  assert.deepEqual(parseBlocks('an `unclosed and **half').map((b) => b.inlines), [[{ type: 'text', text: 'an `unclosed and **half' }]]);
});

test('the menu lists every tutorial', async () => {
  const page = await newPage();
  await page.goto(`${origin}/`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.click('#tutorials');
  await page.waitForSelector('#tutorials-menu:not([hidden]) [role=menuitem]');
  const ids = await page.$$eval('#tutorials-menu [role=menuitem]', (els) => els.map((e) => e.dataset.tutorial));
  assert.deepEqual(ids, INDEX.map((t) => t.id));
  await shot(page, '20-tutorials-menu');
  await page.keyboard.press('Escape');
  assert.equal(await page.isHidden('#tutorials-menu'), true);
  await page.close();
});

for (const t of TUTORIALS) {
  test(`tutorial ${t.id}: every step from first to last shows the tick`, async () => {
    const page = await newPage();
    await page.goto(`${origin}/`);
    await page.waitForSelector('body[data-ready="true"]');
    let opened = await openFromMenu(page, t.id);
    for (let i = 0; i < t.steps.length; i++) {
      const step = t.steps[i];
      assert.equal(await page.textContent('#tutorial-pos'), `Step ${i + 1} of ${t.steps.length}`);
      assert.equal((await page.textContent('#tutorial-step-title')).trim(), step.title.replaceAll('`', ''));
      // The step's text is rendered, and its code spans are <code> elements.
      const codes = await page.$$eval('#tutorial-text code', (els) => els.length);
      assert.equal(codes > 0, join2(step.text).includes('`'), `${t.id} step ${i + 1}: code spans`);
      // The editors hold the step's database and script.
      const saved = await savedState(page);
      assert.equal(saved.db, join2(step.db), `${t.id} step ${i + 1}: database`);
      assert.equal(saved.script, join2(step.script), `${t.id} step ${i + 1}: script`);
      assert.equal(saved.tutorial, t.id);
      assert.equal(saved.step, i + 1);
      // Opening a step runs it; Run runs it again: both times the tick.
      assert.ok(opened.ok, `${t.id} step ${i + 1} (${step.title}), on opening: ${opened.text}`);
      const verdict = await runStep(page);
      assert.ok(verdict.ok, `${t.id} step ${i + 1} (${step.title}): ${verdict.text}`);
      if (i === 0) await shot(page, `21-${t.id}-first-step`);
      if (i + 1 < t.steps.length) {
        assert.equal(await page.isDisabled('#tutorial-next'), false);
        opened = await verdictAfter(page, () => page.click('#tutorial-next'));
      } else {
        assert.equal(await page.isDisabled('#tutorial-next'), true);
        await shot(page, `22-${t.id}-last-step`);
      }
    }
    // Every step is marked done in the step list.
    const done = await page.$$eval('#tutorial-steps .tut-done', (els) => els.filter((e) => e.textContent.includes('✓')).length);
    assert.equal(done, t.steps.length);
    await page.close();
  });
}

test('progress is remembered, Prev and Reset this step work', async () => {
  const page = await newPage();
  await page.goto(`${origin}/`);
  await page.waitForSelector('body[data-ready="true"]');
  // The autosaved page reopens on the last step seen, with the panel, and its run passes.
  await page.waitForSelector('#tutorial:not([hidden])');
  await page.waitForSelector('#tutorial-check[data-ok="true"]');
  const last = TUTORIALS.at(-1);
  assert.equal(await page.textContent('#tutorial-pos'), `Step ${last.steps.length} of ${last.steps.length}`);
  // The menu shows what has been done.
  await page.click('#tutorials');
  await page.waitForSelector('#tutorials-menu:not([hidden])');
  const progress = await page.textContent(`#tutorials-menu [data-tutorial="${TUTORIALS[0].id}"]`);
  assert.match(progress, new RegExp(`${TUTORIALS[0].steps.length} done`));
  assert.ok((await verdictAfter(page, () => page.click(`#tutorials-menu [data-tutorial="${TUTORIALS[0].id}"]`))).ok);
  // The bucket tutorial reopens where it was left: its last step.
  const bucket = TUTORIALS[0];
  assert.equal(await page.textContent('#tutorial-pos'), `Step ${bucket.steps.length} of ${bucket.steps.length}`);
  assert.ok((await verdictAfter(page, () => page.click('#tutorial-prev'))).ok);
  assert.equal(await page.textContent('#tutorial-pos'), `Step ${bucket.steps.length - 1} of ${bucket.steps.length}`);
  // Edit the script so the outcome is wrong: the panel says exactly what differs.
  await page.click('#query-editor .cm-content');
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText('db.trades.find({ _id: /^123_/ })');
  const wrong = await runStep(page);
  assert.equal(wrong.ok, false);
  assert.match(wrong.text, /Not what this step expects/);
  assert.match(wrong.text, /collection trades: expected 4 documents, found 3/);
  await shot(page, '23-tutorial-differences');
  // Reset this step brings back its script, and it passes again.
  assert.ok((await verdictAfter(page, () => page.click('#tutorial-reset'))).ok);
  const saved = await savedState(page);
  assert.equal(saved.script, join2(bucket.steps.at(-2).script));
  // Closing the tutorial hides the panel; the editors stay as they are.
  await page.click('#tutorial-close');
  assert.equal(await page.isHidden('#tutorial'), true);
  assert.equal((await savedState(page)).tutorial, null);
  await page.close();
});

test('a share link opens the tutorial at its step', async () => {
  const page = await newPage();
  await page.goto(`${origin}/`);
  await page.waitForSelector('body[data-ready="true"]');
  const subset = TUTORIALS.find((t) => t.id === 'subset');
  await openFromMenu(page, 'subset');
  // Go to step 2, the error lesson.
  await page.click('.tut-steps-box summary');
  await verdictAfter(page, () => page.click('#tutorial-steps [data-step="2"]'));
  assert.equal(await page.textContent('#tutorial-pos'), `Step 2 of ${subset.steps.length}`);
  await page.click('#share');
  await page.waitForSelector('#share-dialog[open]');
  const url = await page.inputValue('#share-url');
  await page.keyboard.press('Escape');
  await page.close();

  // A fresh browser profile: no autosave, no progress.
  const fresh = await launch(chromium, 'mqlplay-fresh-', { viewport: { width: 1280, height: 860 } });
  const other = await fresh.context.newPage();
  other.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await other.goto(url);
  await other.waitForSelector('body[data-ready="true"]');
  await other.waitForSelector('#tutorial:not([hidden])');
  assert.equal(await other.textContent('#tutorial-pos'), `Step 2 of ${subset.steps.length}`);
  assert.match(await other.textContent('#tutorial-step-title'), /read the error/i);
  // The page ran the link on opening: the check expects the bad ObjectId's error.
  await other.waitForSelector('#tutorial-check[data-ok="true"]');
  assert.match(await other.textContent('#result'), /24 character hex string/);
  await shot(other, '24-tutorial-link');
  await fresh.close();
});

test('tutorials: no request left the origin and nothing was logged', () => {
  const foreign = requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:') && !u.startsWith('blob:'));
  assert.deepEqual(foreign, []);
  assert.deepEqual(problems, []);
});
