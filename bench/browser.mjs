// The page in headless Chromium (Debian's /usr/bin/chromium through
// playwright-core; no browser is downloaded): cold start (navigation to first
// result, fresh profile each time), a Run on the bucket tutorial's data, and
// the download sizes. Prints or writes one JSON object; `{skipped}` when the
// page or the browser is not there.
//
//   node bench/browser.mjs [--www www] [--runs 3] [--out FILE]
import { readFileSync, writeFileSync, existsSync, statSync } from "node:fs";
import { join, resolve, dirname } from "node:path";
import { gzipSync, deflateRawSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { CHROMIUM, serve, launch } from "../www/tests/harness.mjs";

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

  const site = await serve(WWW);
  const origin = site.origin;
  const browsers = [];
  const result = { cold_runs: RUNS, notes: [] };
  try {
    const wasm = readFileSync(wasmFile);
    result.wasm_bytes = wasm.length;
    result.wasm_gzip_bytes = gzipSync(wasm, { level: 9 }).length;

    /** A fresh profile and browser: nothing cached, nothing compiled. */
    async function fresh() {
      const browser = await launch(chromium, "mqlplay-bench-profile-");
      browsers.push(browser);
      const { context } = browser;
      const page = context.pages()[0] ?? (await context.newPage());
      return { context, page };
    }

    /** Navigate and wait for the first result; ms from navigation start (the page's own mark when it has one). */
    async function coldStart(page, url) {
      const t0 = Date.now();
      await page.goto(url);
      await page.waitForSelector(FIRST_RESULT, { timeout: 30_000 });
      const wall = Date.now() - t0;
      const mark = await page.evaluate(() => performance.getEntriesByName("mqlplay:first-result")[0]?.startTime ?? null);
      if (mark == null) result.notes.push("the page set no mqlplay:first-result mark: wall-clock time used");
      return mark ?? wall;
    }

    const cold = [];
    const urls = new Set();
    for (let i = 0; i < RUNS; i++) {
      const { context, page } = await fresh();
      page.on("request", (r) => urls.add(r.url()));
      cold.push(await coldStart(page, `${origin}/`));
      const err = await page.$("#result .error");
      if (err) result.notes.push(`default template: the first result is an error: ${(await err.textContent()).slice(0, 160)}`);
      await context.close();
    }
    result.cold_first_result_ms = median(cold);
    result.cold_samples_ms = cold;

    // What the page downloads on a cold start, from the files served.
    let raw = 0, gz = 0;
    for (const u of urls) {
      const p = new URL(u);
      if (p.origin !== origin) continue;
      let f = join(WWW, decodeURIComponent(p.pathname));
      if (p.pathname.endsWith("/")) f = join(f, "index.html");
      if (!existsSync(f) || !statSync(f).isFile()) continue;
      const bytes = readFileSync(f);
      raw += bytes.length;
      gz += gzipSync(bytes, { level: 9 }).length;
    }
    result.page_bytes = raw;
    result.page_gzip_bytes = gz;
    result.page_files = urls.size;

    const step = bucketStep();
    if (!step) {
      result.notes.push("no bucket tutorial in www/tutorials/bucket.json: its Run was not measured");
    } else {
      const { context, page } = await fresh();
      const state = { db: step.db, script: step.script, now: Date.UTC(2024, 0, 1), seed: 0, view: "shell" };
      result.bucket_step = step.title;
      result.bucket_first_result_ms = await coldStart(page, `${origin}/#${link(state)}`);
      await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
      const runs = () => page.evaluate(() => Number(document.body.dataset.runs || 0));
      const reruns = [];
      for (let i = 0; i < 7; i++) {
        const n = await runs();
        const t0 = Date.now();
        await page.click("#run");
        await page.waitForFunction((k) => Number(document.body.dataset.runs || 0) > k, n, { timeout: 30_000 });
        reruns.push(Date.now() - t0);
      }
      result.bucket_rerun_ms = median(reruns);
      result.bucket_rerun_samples_ms = reruns;
      const err = await page.$("#result .error");
      if (err) result.notes.push(`bucket tutorial step "${step.title}": the run ends in an error: ${(await err.textContent()).slice(0, 160)}`);
      await context.close();
    }
    log(`cold start ${result.cold_first_result_ms.toFixed(0)} ms; wasm ${result.wasm_bytes} bytes (${result.wasm_gzip_bytes} gzipped)`);
  } finally {
    site.stop();
    for (const b of browsers) await b.close().catch(() => {});
  }
  finish(result);
}

main().catch((e) => {
  console.error("browser-bench:", e.stack ?? e);
  finish({ skipped: `the browser benchmark failed: ${e.message ?? e}` });
  process.exitCode = 1;
});
