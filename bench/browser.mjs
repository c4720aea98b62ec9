// The page in headless Chromium (Debian's /usr/bin/chromium through
// playwright-core; no browser is downloaded), served gzipped as a host would
// (bench/static.mjs): navigation to the first result on localhost and with the
// network throttled through the DevTools protocol (fresh profile each time),
// the whole page's gzipped weight as sent, and a Run on the bucket tutorial's
// data. Prints or writes one JSON object; `{skipped}` when the page or the
// browser is not there.
//
//   node bench/browser.mjs [--www www] [--runs 3] [--out FILE]
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join, resolve, dirname } from "node:path";
import { gzipSync, deflateRawSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { CHROMIUM, launch } from "../www/tests/harness.mjs";
import { serveGzip } from "./static.mjs";

// The slow link: 10 Mbit/s down, 40 ms round trip (upload not limited).
const THROTTLE = { offline: false, latency: 40, downloadThroughput: 10e6 / 8, uploadThroughput: -1 };
const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const WWW = resolve(opt("--www", join(here, "..", "www")));
const RUNS = Number(opt("--runs", "3"));
const OUT = opt("--out", null);
const FIRST_RESULT = "#result .result pre.shell, #result .error";
const log = (...m) => console.error("browser-bench:", ...m);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function finish(result) {
  const text = JSON.stringify(result, null, 1);
  if (OUT) writeFileSync(OUT, text);
  else console.log(text);
}



/** A share link (`#v1` + deflate-raw + base64url of the page's state), as www/src makes them. */
function link(state) {
  return `v1${deflateRawSync(Buffer.from(JSON.stringify(state))).toString("base64url")}`;
}

/** A step of the bucket tutorial with the most data: its database and script. */
function bucketStep() {
  const f = join(WWW, "tutorials", "bucket.json");
  if (!existsSync(f)) return null;
  const t = JSON.parse(readFileSync(f, "utf8"));
  const join2 = (x) => (Array.isArray(x) ? x.join("\n") : x ?? "");
  let best = null;
  for (const s of t.steps ?? []) {
    const db = join2(s.db);
    if (db && (!best || db.length >= best.db.length)) best = { title: s.title, db, script: join2(s.script) };
  }
  return best;
}

async function main() {
  if (!existsSync(join(WWW, "index.html"))) return finish({ skipped: `no page: ${WWW}/index.html does not exist yet` });
  const wasmFile = join(WWW, "pkg", "mqlplay_bg.wasm");
  if (!existsSync(wasmFile)) return finish({ skipped: `no wasm build in ${WWW}/pkg (run ./build.sh)` });
  if (!existsSync(CHROMIUM)) return finish({ skipped: `no Chromium at ${CHROMIUM}` });
  let chromium;
  try {
    ({ chromium } = await import("playwright-core"));
  } catch (e) {
    return finish({ skipped: `playwright-core is not installed (npm ci in bench/): ${e.message}` });
  }

  const site = await serveGzip(WWW);
  const origin = site.origin;
  const browsers = [];
  const result = { runs: RUNS, throttle: THROTTLE, notes: [] };
  const note = (n) => {
    if (!result.notes.includes(n)) result.notes.push(n);
  };
  try {
    const wasm = readFileSync(wasmFile);
    result.wasm_bytes = wasm.length;
    result.wasm_gzip_bytes = gzipSync(wasm, { level: 9 }).length;
    // The page compiles the module while it downloads (www/src/worker.js), which
    // needs the fetch Response itself; read from the bundle the page ships.
    const worker = join(WWW, "dist", "worker.js");
    result.wasm_streaming = existsSync(worker) && /\b(compileStreaming|instantiateStreaming)\(\s*fetch\(/.test(readFileSync(worker, "utf8"));
    if (!result.wasm_streaming) note("the page's worker (dist/worker.js) does not compile the wasm with compileStreaming/instantiateStreaming(fetch(...))");

    /** A fresh profile and browser: nothing cached, nothing compiled. */
    async function fresh() {
      const browser = await launch(chromium, "mqlplay-bench-profile-");
      browsers.push(browser);
      const { context } = browser;
      const page = context.pages()[0] ?? (await context.newPage());
      return { browser, context, page };
    }

    /**
     * Navigate on a fresh profile and wait for the first result: ms from navigation
     * start (the page's own mark when it has one). With `throttle`, the DevTools
     * protocol slows the network first; the engine's worker fetches the wasm, so
     * the wasm's own download time is read in that worker and returned beside.
     */
    async function coldStart(url, throttle) {
      const { browser, context, page } = await fresh();
      try {
        if (throttle) {
          const cdp = await context.newCDPSession(page);
          await cdp.send("Network.enable");
          await cdp.send("Network.emulateNetworkConditions", throttle);
        }
        const t0 = Date.now();
        await page.goto(url);
        await page.waitForSelector(FIRST_RESULT, { timeout: 60_000 });
        const wall = Date.now() - t0;
        const mark = await page.evaluate(() => performance.getEntriesByName("mqlplay:first-result")[0]?.startTime ?? null);
        if (mark == null) note("the page set no mqlplay:first-result mark: wall-clock time used");
        const err = await page.$("#result .error");
        if (err) note(`the first result is an error: ${(await err.textContent()).slice(0, 160)}`);
        let wasmFetchMs = null;
        for (const w of page.workers()) {
          const e = await w.evaluate(() => performance.getEntriesByType("resource").find((r) => r.name.endsWith(".wasm"))).catch(() => null);
          if (e) wasmFetchMs = e.responseEnd - e.startTime;
        }
        return { ms: mark ?? wall, wasmFetchMs };
      } finally {
        await browser.close().catch(() => {});
      }
    }

    // One unmeasured start: fills the server's gzip cache and the OS's file cache
    // (Chromium itself), and gives the page's weight as sent.
    site.reset();
    await coldStart(`${origin}/`, null);
    result.page_files = site.sent.size;
    result.page_gzip_bytes = [...site.sent.values()].reduce((a, b) => a + b, 0);
    result.page_bytes = [...site.sent.keys()].reduce((a, p) => a + readFileSync(join(WWW, p.endsWith("/") ? `${p}index.html` : p)).length, 0);

    const local = [], slow = [], slowWasm = [];
    for (let i = 0; i < RUNS; i++) {
      local.push((await coldStart(`${origin}/`, null)).ms);
      const t = await coldStart(`${origin}/`, THROTTLE);
      slow.push(t.ms);
      if (t.wasmFetchMs != null) slowWasm.push(t.wasmFetchMs);
    }
    result.first_result_ms = median(local);
    result.first_result_samples_ms = local;
    result.throttled_first_result_ms = median(slow);
    result.throttled_first_result_samples_ms = slow;
    // The throttle must reach the worker's fetch: at 10 Mbit/s the gzipped wasm
    // alone takes bytes / 1.25 MB/s.
    const floorMs = (result.wasm_gzip_bytes / THROTTLE.downloadThroughput) * 1000;
    result.throttled_wasm_fetch_ms = slowWasm.length ? median(slowWasm) : null;
    result.throttled_wasm_floor_ms = floorMs;
    if (result.throttled_wasm_fetch_ms == null) note("the wasm's download time was not found in the engine's worker");
    else if (result.throttled_wasm_fetch_ms < 0.9 * floorMs) {
      note(`the throttle did not reach the wasm's download (${result.throttled_wasm_fetch_ms.toFixed(0)} ms, below the ${floorMs.toFixed(0)} ms its bytes need at 10 Mbit/s): the throttled figure is too low`);
      result.throttle_failed = true;
    }

    const step = bucketStep();
    if (!step) {
      note("no bucket tutorial in www/tutorials/bucket.json: its Run was not measured");
    } else {
      const { context, page } = await fresh();
      const state = { db: step.db, script: step.script, now: Date.UTC(2024, 0, 1), seed: 0, view: "shell" };
      result.bucket_step = step.title;
      const t0 = Date.now();
      await page.goto(`${origin}/#${link(state)}`);
      await page.waitForSelector(FIRST_RESULT, { timeout: 60_000 });
      result.bucket_first_result_ms = (await page.evaluate(() => performance.getEntriesByName("mqlplay:first-result")[0]?.startTime ?? null)) ?? Date.now() - t0;
      await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
      const runs = () => page.evaluate(() => Number(document.body.dataset.runs || 0));
      const reruns = [];
      for (let i = 0; i < 7; i++) {
        const n = await runs();
        const t1 = Date.now();
        await page.click("#run");
        await page.waitForFunction((k) => Number(document.body.dataset.runs || 0) > k, n, { timeout: 30_000 });
        reruns.push(Date.now() - t1);
      }
      result.bucket_rerun_ms = median(reruns);
      result.bucket_rerun_samples_ms = reruns;
      const err = await page.$("#result .error");
      if (err) note(`bucket tutorial step "${step.title}": the run ends in an error: ${(await err.textContent()).slice(0, 160)}`);
      await context.close();
    }
    log(
      `first result ${result.first_result_ms.toFixed(0)} ms on localhost, ${result.throttled_first_result_ms.toFixed(0)} ms throttled ` +
        `(wasm download ${result.throttled_wasm_fetch_ms?.toFixed(0) ?? "?"} ms); page ${result.page_gzip_bytes} bytes gzipped`,
    );
  } finally {
    await site.stop();
    for (const b of browsers) await b.close().catch(() => {});
  }
  finish(result);
}

main().catch((e) => {
  console.error("browser-bench:", e.stack ?? e);
  finish({ skipped: `the browser benchmark failed: ${e.message ?? e}` });
  process.exitCode = 1;
});
