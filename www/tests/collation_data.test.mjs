// Browser test of the collation data the page loads on demand: the wasm carries
// none; a script with a collation makes the worker fetch pkg/collation.postcard
// once and run again, and answers as the CLI does (compiled data); a script
// without one fetches nothing. Screenshots go to tests/artifacts/collation-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync, mkdtempSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { serve, launch } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const www = join(here, '..');
const repo = join(www, '..');
const artifacts = join(here, 'artifacts');
const CLI = [process.env.MQLPLAY_CLI, ...[process.env.CARGO_TARGET_DIR, join(repo, 'target')]
  .filter(Boolean).flatMap((t) => [join(t, 'release', 'mqlplay'), join(t, 'debug', 'mqlplay')])]
  .find((p) => p && existsSync(p));

let site;
let origin;
let browser;
const problems = [];

const runs = (page) => page.evaluate(() => Number(document.body.dataset.runs || 0));

async function runScript(page, script) {
  const n = await runs(page);
  await page.click('#query-editor .cm-content');
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(script);
  await page.click('#run');
  await page.waitForFunction((k) => Number(document.body.dataset.runs || 0) >= k, n + 1, { timeout: 20_000 });
  return page.textContent('#result');
}

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  site = await serve(www);
  origin = site.origin;
  browser = await launch(chromium, 'mqlplay-collation-', { colorScheme: 'light' });
});

after(async () => {
  await browser?.close();
  site?.stop();
});

// German orders ä beside a; bytes put it after b.
const SETUP = 'db.words.insertMany([{_id: 1, s: "ä"}, {_id: 2, s: "b"}, {_id: 3, s: "a"}]);\n';
const sorted = (collation) => `${SETUP}db.words.aggregate([{$sort: {s: 1}}, {$group: {_id: null, ids: {$push: "$_id"}}}]${collation})`;

test('collation data is fetched only for a script with a collation, and answers as the CLI', async () => {
  assert.ok(CLI, 'the CLI is built (MQLPLAY_CLI)');
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1366, height: 768 });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  const fetched = [];
  page.on('request', (r) => { if (r.url().endsWith('/collation.postcard')) fetched.push(r.url()); });
  await page.goto(`${origin}/favicon.svg`);
  await page.evaluate(() => localStorage.clear());
  await page.goto(`${origin}/?lang=en`);
  await page.waitForSelector('body[data-ready="true"]');

  const simple = await runScript(page, sorted(''));
  assert.match(simple, /ids: \[\s*3,\s*2,\s*1\s*\]/, simple);
  assert.equal(fetched.length, 0, 'no collation data without a collation');

  const script = sorted(', {collation: {locale: "de"}}');
  const german = await runScript(page, script);
  assert.match(german, /ids: \[\s*3,\s*1,\s*2\s*\]/, german);
  assert.equal(fetched.length, 1, 'the data is fetched for the first collation');

  const dir = mkdtempSync(join(tmpdir(), 'mqlplay-collation-'));
  const file = join(dir, 'script.js');
  for (const s of [
    script,
    `${SETUP}db.words.find({s: "A"}, {_id: 1}).collation({locale: "de", strength: 1}).toArray()`,
    `${SETUP}db.words.createIndex({s: 1}, {collation: {locale: "es@collation=traditional"}});\ndb.words.find({}, {_id: 1}).sort({s: -1}).collation({locale: "es@collation=traditional"}).toArray()`,
  ]) {
    writeFileSync(file, s);
    const cli = spawnSync(CLI, ['run', file], { encoding: 'utf8' }).stdout.trim();
    const onPage = await runScript(page, s);
    // The CLI prints every statement's result: its last line is the script's.
    const norm = (t) => t.replace(/\s+/g, '');
    const last = norm(cli.split('\n').slice(-1)[0]);
    assert.ok(last.length > 8, cli);
    assert.ok(norm(onPage).includes(last), `page ${onPage}\ncli ${cli}`);
  }
  assert.equal(fetched.length, 1, 'the data is fetched once');
  await page.screenshot({ path: join(artifacts, 'collation-1366.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(artifacts, 'collation-390.png') });
  assert.deepEqual(problems, []);
});
