// Results to JavaScript as the page's worker gets them (BENCHMARKS.md, "Results to
// JavaScript"): the whole result as the engine writes it (relaxed Extended JSON
// text, then JSON.parse; what the worker parsed before results were paged) beside
// the page's own run (`run_page_again`: the query, its first page of 100 documents,
// the shell text and the work, then JSON.parse), and what "Show 100 more" costs: the
// first request runs the script again and keeps the result's other documents, later
// ones read them. Interleaved A/B rounds in one process; prints the load average,
// since this is not the quiet `./build.sh bench`.
//   node bench/page_results.mjs [--pkg www/pkg] [--rounds 15]
import { readFileSync, copyFileSync, mkdtempSync } from "node:fs";
import { join, resolve, dirname } from "node:path";
import os, { tmpdir } from "node:os";
import { pathToFileURL, fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { documents, configText } from "./data.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const opt = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const PKG = resolve(opt("--pkg", join(here, "..", "www", "pkg")));
const ROUNDS = Number(opt("--rounds", "15"));
const NOW = Date.UTC(2024, 0, 1);
const CASES = [
  { id: "find_history_ticker", dataset: "buckets", n: 10_000, script: 'db.buckets.find({"history.ticker": "MDB"})' },
  { id: "find_qty_range", dataset: "trades", n: 100_000, script: "db.trades.find({qty: {$gte: 500, $lt: 510}})" },
];

const dir = mkdtempSync(join(tmpdir(), "mqlplay-pkg-"));
copyFileSync(join(PKG, "mqlplay.js"), join(dir, "mqlplay.mjs"));
const mod = await import(pathToFileURL(join(dir, "mqlplay.mjs")).href);
mod.initSync({ module: readFileSync(join(PKG, "mqlplay_bg.wasm")) });

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ms = (x) => `${x.toFixed(2)} ms`;
const time = (f) => {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
};

console.log(`load average at the start: ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
for (const c of CASES) {
  const text = configText(c.dataset, documents(c.dataset, c.n));
  const db = new mod.BenchDb(text, NOW, 0);
  const script = new mod.BenchScript(c.script);
  mod.run_page(text, c.script, NOW, 0); // the page's first run loads the configuration
  const whole = [];
  const paged = [];
  const firstMore = [];
  const nextMore = [];
  let shown = 0;
  let total = 0;
  for (let r = 0; r < ROUNDS; r++) {
    whole.push(time(() => {
      db.run_size(script);
      total = JSON.parse(db.last_to_json_text()).length;
    }));
    paged.push(time(() => {
      const out = JSON.parse(mod.run_page_again(c.script, NOW, 0));
      shown = out.results[0].length;
    }));
    firstMore.push(time(() => JSON.parse(mod.result_page(0, 100, 100))));
    nextMore.push(time(() => JSON.parse(mod.result_page(0, 200, 100))));
  }
  const spread = (xs) => `${ms(Math.min(...xs))}–${ms(Math.max(...xs))}`;
  console.log(`${c.id} (${c.dataset} ${c.n}, ${total} results): whole result to JS ${ms(median(whole))} (${spread(whole)}); ` +
    `the page's run, ${shown} shown ${ms(median(paged))} (${spread(paged)}); ` +
    `first "more" ${ms(median(firstMore))} (${spread(firstMore)}), next ${ms(median(nextMore))} (${spread(nextMore)})`);
  db.free();
  script.free();
}
console.log(`load average at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
