// Browser tests of the step-through tutorials (www/tutorials/): every step of
// every tutorial is opened from the Tutorials menu; nothing runs on Next;
// walkthroughs are run as given, exercises are solved by typing their solution
// (their starter fails first); then Show solution, a wrong answer's plain-words
// feedback, hints, the explain a step talks about, progress and its reset, share
// links, and the phone layout (Next on screen on every step).
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

/** Open a tutorial from the menu: its step is loaded, not run. */
async function openFromMenu(page, id) {
  await page.click('#tutorials');
  await page.waitForSelector(`#tutorials-menu [data-tutorial="${id}"]`);
  await page.click(`#tutorials-menu [data-tutorial="${id}"]`);
  await page.waitForSelector('#tutorial:not([hidden])');
}

/** Go to step n through the step list (nothing runs). */
async function goToStep(page, n) {
  await page.click('.tut-steps-box summary');
  await page.click(`#tutorial-steps [data-step="${n}"]`);
  await page.waitForFunction((k) => document.getElementById('tutorial-pos').textContent.startsWith(`Step ${k} `), n);
}

/** Replace the Query pane's text, as a learner would type it. */
async function typeQuery(page, text) {
  await page.click('#query-editor .cm-content');
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

async function freshPage(viewport) {
  const page = await newPage();
  if (viewport) await page.setViewportSize(viewport);
  await page.goto(`${origin}/`);
  await page.waitForSelector('body[data-ready="true"]');
  return page;
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

test('the menu lists every tutorial with its progress', async () => {
  const page = await freshPage();
  await page.click('#tutorials');
  await page.waitForSelector('#tutorials-menu:not([hidden]) [role=menuitem]');
  const ids = await page.$$eval('#tutorials-menu [role=menuitem]', (els) => els.map((e) => e.dataset.tutorial));
  assert.deepEqual(ids, INDEX.map((t) => t.id));
  await page.waitForFunction(() => [...document.querySelectorAll('.tut-menu-progress')].every((e) => e.textContent));
  const counts = await page.$$eval('.tut-menu-progress', (els) => els.map((e) => e.textContent));
  assert.deepEqual(counts, TUTORIALS.map((t) => `0/${t.steps.length}`));
  await shot(page, '20-tutorials-menu');
  await page.keyboard.press('Escape');
  assert.equal(await page.isHidden('#tutorials-menu'), true);
  await page.close();
});

for (const t of TUTORIALS) {
  test(`tutorial ${t.id}: walkthroughs run as given, exercises solved by typing`, async () => {
    const page = await freshPage();
    await openFromMenu(page, t.id);
    // The sources are credited and linked at the start.
    const links = await page.$$eval('#tutorial-sources a', (as) => as.map((a) => a.href));
    assert.deepEqual(links, t.sources.map((s) => s.url));
    for (let i = 0; i < t.steps.length; i++) {
      const step = t.steps[i];
      const at = `${t.id} step ${i + 1} (${step.title})`;
      assert.equal(await page.textContent('#tutorial-pos'), `Step ${i + 1} of ${t.steps.length}`);
      assert.equal((await page.textContent('#tutorial-step-title')).trim(), step.title.replaceAll('`', ''));
      const exercise = step.kind === 'exercise';
      assert.equal(await page.textContent('#tutorial-kind'), exercise ? 'Exercise' : 'Walkthrough');
      // Nothing ran: the editors hold the step's database and script (or starter), no verdict yet.
      const saved = await savedState(page);
      assert.equal(saved.db, join2(step.db), `${at}: database`);
      assert.equal(saved.script, join2(step.script), `${at}: script`);
      assert.equal(saved.step, i + 1);
      assert.equal(await page.getAttribute('#tutorial-check', 'data-ok'), null, `${at}: judged before a run`);
      if (exercise) {
        assert.equal(await page.isVisible('#tutorial-solution'), true);
        const starter = await runStep(page);
        assert.equal(starter.ok, false, `${at}: the starter passes`);
        await typeQuery(page, join2(step.solution));
      } else {
        assert.equal(await page.isVisible('#tutorial-solution'), false);
      }
      const verdict = await runStep(page);
      assert.ok(verdict.ok, `${at}: ${verdict.text}`);
      if (i === 0) await shot(page, `21-${t.id}-first-step`);
      if (i + 1 < t.steps.length) {
        const before = await runs(page);
        await page.click('#tutorial-next');
        await page.waitForFunction((k) => document.getElementById('tutorial-pos').textContent.startsWith(`Step ${k} `), i + 2);
        await page.waitForTimeout(150);
        assert.equal(await runs(page), before, `${at}: Next ran something`);
      } else {
        assert.equal(await page.isDisabled('#tutorial-next'), true);
        await shot(page, `22-${t.id}-last-step`);
      }
    }
    // Every step is solved, none with the solution shown; the menu says so.
    const marks = await page.$$eval('#tutorial-steps .tut-done', (els) => els.map((e) => e.textContent.trim()));
    assert.deepEqual(marks, t.steps.map(() => '✓ done'));
    await page.click('#tutorials');
    await page.waitForFunction((id) => document.querySelector(`#tutorials-menu [data-tutorial="${id}"] .tut-menu-progress`)?.textContent, t.id);
    assert.equal(await page.textContent(`#tutorials-menu [data-tutorial="${t.id}"] .tut-menu-progress`), `${t.steps.length}/${t.steps.length}`);
    await page.keyboard.press('Escape');
    await page.close();
  });
}

test('Hint, Show solution, and a wrong answer in plain words', async () => {
  const page = await freshPage();
  await page.evaluate(() => localStorage.removeItem('mqlplay.tutorials.v2'));
  const bucket = TUTORIALS.find((t) => t.id === 'bucket');
  const n = bucket.steps.findIndex((s) => s.title.includes('customer 456')) + 1;
  assert.ok(n > 0);
  const step = bucket.steps[n - 1];
  await openFromMenu(page, 'bucket');
  await goToStep(page, n);
  // Hints come one at a time.
  assert.equal(await page.isHidden('#tutorial-hints'), true);
  await page.click('#tutorial-hint');
  assert.equal(await page.$$eval('#tutorial-hints li', (l) => l.length), 1);
  await page.click('#tutorial-hint');
  assert.equal(await page.$$eval('#tutorial-hints li', (l) => l.length), step.hints.length);
  assert.equal(await page.isDisabled('#tutorial-hint'), true);
  // A plausible wrong answer: the trade is pushed but the count is not raised.
  await typeQuery(page, join2(step.wrong[0].script));
  const wrong = await runStep(page);
  assert.equal(wrong.ok, false);
  assert.match(wrong.text, /Not yet/);
  assert.match(await page.textContent('#tutorial-check .tut-feedback'), /Customer 456's bucket count should be 2; it is 1\./);
  // Internal paths wait behind Details.
  assert.equal(await page.isVisible('#tutorial-check .tut-diffs'), false);
  await page.click('#tutorial-check .tut-details summary');
  assert.match(await page.textContent('#tutorial-check .tut-diffs'), /trades\[1\]\.count: expected 2, found 1/);
  await shot(page, '23-tutorial-wrong-answer');
  // Show solution puts it into the Query pane; it still has to be run.
  const before = await runs(page);
  await page.click('#tutorial-solution');
  await page.waitForTimeout(150);
  assert.equal(await runs(page), before);
  assert.equal((await savedState(page)).script, join2(step.solution));
  assert.ok((await runStep(page)).ok);
  await page.click('.tut-steps-box summary');
  assert.match(await page.textContent(`#tutorial-steps li:nth-child(${n}) .tut-done`), /done with the solution shown/);
  await shot(page, '24-tutorial-solution-shown');
  // Forgetting the progress empties the list.
  await page.click('#tutorial-forget');
  assert.deepEqual(await page.$$eval('#tutorial-steps .tut-done', (els) => els.filter((e) => e.textContent).length), 0);
  await page.close();
});

test('the explain a step talks about is scrolled into view; the header stays', async () => {
  const page = await freshPage({ width: 1366, height: 768 });
  const bucket = TUTORIALS.find((t) => t.id === 'bucket');
  const n = bucket.steps.findIndex((s) => s.focus) + 1;
  await openFromMenu(page, 'bucket');
  await goToStep(page, n);
  // The step's own experiment: the hint to a collection scan passes too.
  await typeQuery(page, join2(bucket.steps[n - 1].script).replace('.limit(1).explain', '.limit(1).hint({ $natural: 1 }).explain'));
  const v = await runStep(page);
  assert.ok(v.ok, v.text);
  await page.waitForTimeout(200);
  const inView = await page.evaluate(() => {
    const pane = document.getElementById('result').getBoundingClientRect();
    const r = document.querySelectorAll('#result > .result')[1].getBoundingClientRect();
    return r.top >= pane.top - 1 && r.top < pane.bottom;
  });
  assert.ok(inView, 'the explain is in view');
  assert.match(await page.textContent('#result'), /COLLSCAN/);
  // The panel's text scrolls under its header: Next stays visible.
  await page.evaluate(() => { document.getElementById('tutorial').scrollTop = 10_000; });
  const next = await page.locator('#tutorial-next').boundingBox();
  const panel = await page.locator('#tutorial').boundingBox();
  assert.ok(next.y >= panel.y && next.y + next.height <= panel.y + panel.height, JSON.stringify({ next, panel }));
  await shot(page, '25-tutorial-explain-in-view');
  await page.close();
});

test('on a phone, Next is on screen on every step, after every run', async () => {
  const page = await freshPage({ width: 390, height: 844 });
  const onScreen = async (what) => {
    const b = await page.locator('#tutorial-next').boundingBox();
    assert.ok(b && b.y >= 0 && b.y + b.height <= 844, `${what}: Next at ${JSON.stringify(b)}`);
  };
  for (const t of TUTORIALS) {
    await page.evaluate(() => window.scrollTo(0, 0));
    await openFromMenu(page, t.id);
    await goToStep(page, 1);
    for (let i = 0; i < t.steps.length; i++) {
      const at = `${t.id} step ${i + 1}`;
      assert.equal(await page.textContent('#tutorial-pos'), `Step ${i + 1} of ${t.steps.length}`);
      await onScreen(at);
      if (i === 8 && t.id === 'bucket') await shot(page, '26-phone-exercise-before-run');
      const step = t.steps[i];
      if (step.kind === 'exercise') await typeQuery(page, join2(step.solution));
      const v = await runStep(page);
      assert.ok(v.ok, `${at}: ${v.text}`);
      await onScreen(`${at} after the run`);
      if (i === 4 && t.id === 'bucket') await shot(page, '26-phone-bucket-step5-explain');
      if (i + 1 < t.steps.length) await page.click('#tutorial-next');
    }
  }
  // One scroll area: the result pane does not scroll on its own.
  const nested = await page.evaluate(() => {
    const r = document.getElementById('result');
    return getComputedStyle(r).overflowY;
  });
  assert.equal(nested, 'visible');
  await shot(page, '27-phone-last-step');
  await page.close();
});

test('a share link opens the tutorial at its step', async () => {
  const page = await freshPage();
  const subset = TUTORIALS.find((t) => t.id === 'subset');
  await openFromMenu(page, 'subset');
  await goToStep(page, 2);
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
  // Opening a link runs it: the check expects the bad ObjectId's error.
  await other.waitForSelector('#tutorial-check[data-ok="true"]');
  assert.match(await other.textContent('#result'), /24 character hex string/);
  await shot(other, '28-tutorial-link');
  await fresh.close();
});

test('tutorials: no request left the origin and nothing was logged', () => {
  const foreign = requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:') && !u.startsWith('blob:'));
  assert.deepEqual(foreign, []);
  assert.deepEqual(problems, []);
});
