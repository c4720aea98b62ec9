// Nanoseconds per document of the cases that have a hand loop, at 1,000,
// 10,000 and 100,000 trades: each wasm build given, the hand loop and mingo, in
// one process. At 1,000 and 10,000 the documents fit the CPU's caches, so those
// sizes show the work per document; 100,000 adds the memory's cost.
// A DIR holds mqlplay.js and mqlplay_bg.wasm (www/pkg); DIR:fast measures its
// mqlplay_fast_bg.wasm (the page's fast engine) under the same glue.
//
//   node --expose-gc bench/per_doc.mjs DIR [DIR:fast ...]
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { documents, configText, jsonPart } from "./data.mjs";
import { MINGO, HAND, reviveDates } from "./js_cases.mjs";
import { loadEngine } from "./load_engine.mjs";

const here = new URL(".", import.meta.url).pathname;
const spec = JSON.parse(readFileSync(join(here, "cases.json"), "utf8"));
const NOW = Date.UTC(2024, 0, 1);
const SIZES = [1000, 10000, 100000];


/** Median over 15 rounds of the time per call, each round about 20 ms of work. */
function perCall(fn, n) {
  const k = Math.max(1, Math.round(2e6 / n));
  const t = [];
  for (let r = 0; r < 15; r++) {
    const t0 = performance.now();
    for (let i = 0; i < k; i++) fn();
    t.push((performance.now() - t0) / k);
  }
  t.sort((a, b) => a - b);
  return t[t.length >> 1];
}

const engines = [];
for (const arg of process.argv.slice(2)) engines.push(await loadEngine(arg));
if (!engines.length) throw new Error("usage: node --expose-gc bench/per_doc.mjs DIR [DIR:fast ...]");
const cases = spec.cases.filter((c) => HAND[c.id] && c.dataset === "trades");
console.log(["case", "documents", ...engines.map((e) => e.label), "hand loop", "mingo"].join(" | "));
for (const n of SIZES) {
  const text = configText("trades", documents("trades", n));
  const docs = JSON.parse(jsonPart(text), reviveDates).trades;
  const dbs = engines.map((e) => new e.mod.BenchDb(text, NOW, 0));
  for (const c of cases) {
    const ns = (ms) => ((ms * 1e6) / n).toFixed(1);
    const row = [c.id, n];
    engines.forEach((e, i) => {
      const s = new e.mod.BenchScript(c.script);
      row.push(ns(perCall(() => dbs[i].run_size(s), n)));
      s.free();
    });
    row.push(ns(perCall(() => HAND[c.id](docs), n)), ns(perCall(() => MINGO[c.id](docs), n)));
    console.log(row.join(" | "));
  }
  dbs.forEach((db) => db.free());
  globalThis.gc?.();
}
