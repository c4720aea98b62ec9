// Page weight and time to first result: `npm run measure` (after ./build.sh).
// Sizes are gzip -9 of what the browser downloads; the time is from navigation
// to the default template's first result in headless Chromium on localhost
// (median of several fresh loads, each in a new profile so nothing is cached).
import { chromium } from 'playwright-core';
import { serve, launch } from './harness.mjs';
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const www = join(dirname(fileURLToPath(import.meta.url)), '..');
const gz = (file) => gzipSync(readFileSync(join(www, file)), { level: 9 }).length;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

const wasm = 'pkg/mqlplay_bg.wasm';
const scripts = ['index.html', 'pkg/mqlplay.js', ...readdirSync(join(www, 'dist')).map((f) => `dist/${f}`)];
const jsCss = scripts.reduce((sum, f) => sum + gz(f), 0);
console.log(`wasm: ${kb(readFileSync(join(www, wasm)).length)} raw, ${kb(gz(wasm))} gzipped`);
console.log(`HTML+JS+CSS: ${kb(jsCss)} gzipped (${scripts.join(', ')})`);

const site = await serve(www);
const times = [];
try {
  for (let i = 0; i < 7; i++) {
    const { context, close } = await launch(chromium, 'mqlplay-measure-');
    const page = await context.newPage();
    await page.goto(`${site.origin}/`, { waitUntil: 'commit' });
    await page.waitForSelector('#result .result pre.shell, #result .error');
    // Navigation start to the first result, measured by the page's own clock.
    times.push(await page.evaluate(() => Math.round(performance.getEntriesByName('mqlplay:first-result')[0].startTime)));
    await close();
  }
} finally {
  site.stop();
}
times.sort((a, b) => a - b);
console.log(`time to first result: median ${times[times.length >> 1]} ms, best ${times[0]} ms, worst ${times[times.length - 1]} ms (${times.join(', ')})`);
