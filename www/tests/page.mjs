// What the page's browser tests share beyond harness.mjs: www/ served and a browser
// opened for a test file, pages that record what goes wrong on them, and the steps the
// tests take on the page (an editor's text replaced or read, a run awaited, the
// autosaved work, a copy or a download read back).
import { before, after } from 'node:test';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve, launch } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const www = join(here, '..');
export const artifacts = join(here, 'artifacts');

/**
 * Serves www/ and opens a light-scheme browser (profile name `prefix`, `options` for
 * playwright's context) before the file's tests, and closes both after them.
 * Returns `{origin, context, problems}`, filled in once the tests start; with
 * `clipboard` the page may read and write the clipboard.
 */
export function pageSession(prefix, options = {}, { clipboard = false } = {}) {
  const session = { origin: undefined, context: undefined, problems: [] };
  let site;
  let browser;
  before(async () => {
    mkdirSync(artifacts, { recursive: true });
    site = await serve(www);
    session.origin = site.origin;
    browser = await launch(chromium, prefix, { colorScheme: 'light', ...options });
    session.context = browser.context;
    if (clipboard) {
      await session.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: session.origin });
    }
  });
  after(async () => {
    await browser?.close();
    site?.stop();
  });
  return session;
}

/**
 * A new page whose console errors and warnings, uncaught errors and 404 responses
 * go to `session.problems`. A console 404 alone is the browser's own favicon request
 * (not a page response), which may fail.
 */
export async function newPage(session) {
  const page = await session.context.newPage();
  const { problems } = session;
  page.on('console', (m) => {
    if (m.type() === 'error' && /404/.test(m.text())) return;
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('response', (r) => { if (r.status() === 404) problems.push(`404: ${r.url()}`); });
  return page;
}

/** The page in English with nothing autosaved from an earlier test, ready to run. */
export async function openFresh(page, origin) {
  await page.goto(`${origin}/favicon.svg`);
  await page.evaluate(() => localStorage.clear());
  await page.goto(`${origin}/?lang=en`);
  await page.waitForSelector('body[data-ready="true"]');
}

/** A screenshot in tests/artifacts/<name>.png. */
export const screenshot = (page, name) => page.screenshot({ path: join(artifacts, `${name}.png`) });

/** How many runs the page has finished, and a wait for the n-th. */
export const runs = (page) => page.evaluate(() => Number(document.body.dataset.runs || 0));
export const waitRuns = (page, n) => page.waitForFunction(
  (k) => Number(document.body.dataset.runs || 0) >= k, n, { timeout: 20_000 });

/** Replaces the text of the editor `#id` as a user does: select all, delete, type. */
export async function replaceText(page, id, text) {
  await page.click(`#${id} .cm-content`);
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

/** The text of the editor `#id` as the user sees it (without inline error notes). */
export async function editorText(page, id) {
  return page.evaluate((sel) => [...document.querySelectorAll(`${sel} .cm-line`)].map((l) => {
    const copy = l.cloneNode(true);
    for (const w of copy.querySelectorAll('.cm-error-note')) w.remove();
    return copy.textContent;
  }).join('\n'), `#${id}`);
}

/** The autosaved work (the saved slot, not a tab's copy), after the debounce. */
export async function savedWork(page) {
  await page.waitForTimeout(500);
  return page.evaluate(() => JSON.parse(localStorage.getItem('mqlplay.state.v1')));
}

/** Presses Run and waits until that run has finished. */
export async function runAndWait(page) {
  const n = await runs(page);
  await page.click('#run');
  await waitRuns(page, n + 1);
}

/** The Database pane and the Query pane replaced (in the shell view) and run. */
export async function runWith(page, db, script) {
  await page.click('[data-view="shell"]'); // the view is autosaved: an earlier test may have left another
  await replaceText(page, 'db-editor', db);
  await replaceText(page, 'query-editor', script);
  await runAndWait(page);
}

/** What a Copy button put on the clipboard. */
export async function clipboardAfter(page, click) {
  await page.evaluate(() => { document.getElementById('status').textContent = ''; });
  await page.click(click);
  await page.waitForFunction(() => /Copied/.test(document.getElementById('status').textContent));
  return page.evaluate(() => navigator.clipboard.readText());
}

/** What a Download button saved: `{name, text}`. */
export async function downloaded(page, click) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.click(click)]);
  return { name: d.suggestedFilename(), text: readFileSync(await d.path(), 'utf8') };
}
