// mqlplay (wasm, www/pkg) beside mingo in one Node process, on the same data:
// the same queries, pipelines and updates, alternating, several rounds,
// medians. Also the cost of loading the data and of handing results to
// JavaScript; for some cases a hand-written JavaScript loop over the same
// objects (the floor). One process is one sample: tools/bench.sh runs several
// and report.mjs combines them. Prints one JSON object.
//
//   node --expose-gc bench/node.mjs [--pkg www/pkg] [--rounds 7] [--only REGEX] [--scale 1] [--out FILE]
import { readFileSync, writeFileSync, existsSync, copyFileSync, mkdtempSync } from "node:fs";
import { join, resolve, dirname } from "node:path";
import os, { tmpdir } from "node:os";
import { pathToFileURL, fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { documents, configText, jsonPart, fnv1a } from "./data.mjs";
import { MINGO, HAND, reviveDates } from "./js_cases.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const PKG = resolve(opt("--pkg", join(here, "..", "www", "pkg")));
const ROUNDS = Number(opt("--rounds", "7"));
const ONLY = new RegExp(opt("--only", "."));
const OUT = opt("--out", null);
const ROUND_MS = Number(opt("--round-ms", "100"));
const CASE_BUDGET_MS = Number(opt("--case-budget-ms", "12000"));
// --scale 0.1 runs every case on a tenth of the data (for trying the harness).
const SCALE = Number(opt("--scale", "1"));
// The run context the page uses is injected; any fixed instant will do.
const NOW = Date.UTC(2024, 0, 1);

const loadavg = () => os.loadavg().map((x) => Number(x.toFixed(2)));
const log = (...m) => console.error("node-bench:", ...m);
const gc = globalThis.gc ?? (() => {});
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// ---- the wasm engine, loaded once ------------------------------------------
async function loadWasm() {
  const js = join(PKG, "mqlplay.js");
  const wasmFile = join(PKG, "mqlplay_bg.wasm");
  if (!existsSync(js) || !existsSync(wasmFile)) {
    throw new Error(`no wasm build in ${PKG}: run ./build.sh first`);
  }
  // --target web output is an ES module; give it an .mjs name so Node loads
  // it as one whatever package.json says.
  const dir = mkdtempSync(join(tmpdir(), "mqlplay-pkg-"));
  copyFileSync(js, join(dir, "mqlplay.mjs"));
  const mod = await import(pathToFileURL(join(dir, "mqlplay.mjs")).href);
  const bytes = readFileSync(wasmFile);
  const t0 = performance.now();
  const exports = mod.initSync({ module: bytes });
  const instantiateMs = performance.now() - t0;
  if (typeof mod.BenchDb !== "function") {
    throw new Error(`${PKG} has no BenchDb export: rebuild it from a tree with src/wasm_bench.rs`);
  }
  return { mod, memory: exports.memory, wasmBytes: bytes.length, instantiateMs };
}

/** Same measure as bench_api::result_size. */
function size(r) {
  if (Array.isArray(r)) return r.length;
  if (typeof r === "number") return r;
  if (r === null || r === undefined) return 0;
  if (typeof r === "object" && "modifiedCount" in r) return r.modifiedCount;
  return 1;
}

/** mingo's answer in relaxed Extended JSON text, to compare with mqlplay's. */
function relaxed(value) {
  return JSON.stringify(value, function (key, v) {
    const raw = this[key];
    return raw instanceof Date ? { $date: raw.toISOString() } : v;
  });
}

/**
 * A form of an answer both engines can be compared in: key order ignored
 * (mingo orders some output fields differently from MongoDB), numbers as
 * numbers (4.0 and 4), dates as instants (".15Z" and ".150Z").
 */
function canonical(v) {
  if (Array.isArray(v)) return v.map(canonical);
  if (v === null || typeof v !== "object") return v;
  const keys = Object.keys(v);
  if (keys.length === 1 && keys[0] === "$date" && typeof v.$date === "string") return { $date: new Date(v.$date).toISOString() };
  const out = {};
  for (const k of keys.sort()) out[k] = canonical(v[k]);
  return out;
}
const sameAnswer = (oursText, mingoResult) =>
  JSON.stringify(canonical(JSON.parse(oursText))) === JSON.stringify(canonical(JSON.parse(relaxed(mingoResult))));


/** Time fn() alone: median per call over `rounds` rounds of k calls. */
function timeAlone(fn, rounds, k = 1) {
  const per = [];
  for (let r = 0; r < rounds; r++) {
    gc();
    const t0 = performance.now();
    for (let i = 0; i < k; i++) fn();
    per.push((performance.now() - t0) / k);
  }
  return median(per);
}

/** Calls per round so a round lasts about ROUND_MS. */
const callsFor = (ms) => Math.max(1, Math.min(1000, Math.round(ROUND_MS / Math.max(ms, 1e-3))));

async function main() {
  const wasm = await loadWasm();
  const { BenchDb, BenchScript } = wasm.mod;
  log(`wasm ${wasm.wasmBytes} bytes, instantiated in ${wasm.instantiateMs.toFixed(1)} ms`);
  const spec = JSON.parse(readFileSync(join(here, "cases.json"), "utf8"));
  const cases = spec.cases.filter((c) => c.node && ONLY.test(c.id));
  // Writes change the data the reads see: run them last on each data set.
  cases.sort((a, b) => (a.kind === "update") - (b.kind === "update"));
  const byData = new Map();
  for (const c of cases) {
    const key = `${c.dataset}/${Math.round(c.node * SCALE)}`;
    if (!byData.has(key)) byData.set(key, []);
    byData.get(key).push(c);
  }

  const out = {
    node: process.version,
    v8: process.versions.v8,
    mingo: JSON.parse(readFileSync(join(here, "node_modules", "mingo", "package.json"), "utf8")).version,
    rounds: ROUNDS,
    round_ms: ROUND_MS,
    scale: SCALE,
    loadavg_start: loadavg(),
    wasm: { bytes: wasm.wasmBytes, instantiate_ms: wasm.instantiateMs },
    data: {},
    cases: [],
    page_run: [],
    failures: [],
  };

  // Warm-up: V8 compiles wasm and JavaScript in tiers (Liftoff, then
  // TurboFan); run every case once on small data so no figure pays for it.
  for (const [key, group] of byData) {
    const dataset = key.split("/")[0];
    const text = configText(dataset, documents(dataset, 300));
    const db = new BenchDb(text, NOW, 0);
    const docs = JSON.parse(jsonPart(text), reviveDates)[dataset];
    for (const c of group) {
      try {
        const s = new BenchScript(c.script);
        db.run_size(s);
        db.last_to_js();
        s.free();
      } catch { /* reported by the measured run */ }
      try {
        MINGO[c.id](docs);
        HAND[c.id]?.(docs);
      } catch { /* likewise */ }
    }
    db.free();
  }

  for (const [key, group] of byData) {
    const [dataset, nText] = key.split("/");
    const n = Number(nText);
    const text = configText(dataset, documents(dataset, n));
    const json = jsonPart(text);

    // Loading: our reader (text -> Database inside wasm) against JSON.parse,
    // plain and with the dates revived (what mingo needs for the same data).
    // Three reads when a read is quick, one when it takes seconds.
    const readerTimes = [];
    let db = null;
    const readRounds = () => (readerTimes.length && readerTimes[0] > 500 ? 1 : 3);
    for (let r = 0; r < readRounds(); r++) {
      if (db) db.free();
      gc();
      const t0 = performance.now();
      db = new BenchDb(text, NOW, 0);
      readerTimes.push(performance.now() - t0);
    }
    const readerMs = median(readerTimes);
    const parseMs = timeAlone(() => JSON.parse(json), 3);
    const parseReviveMs = timeAlone(() => JSON.parse(json, reviveDates), 3);
    const docs = JSON.parse(json, reviveDates)[dataset];
    out.data[key] = {
      fnv1a: fnv1a(text),
      bytes: text.length,
      documents: n,
      reader_ms: readerMs,
      reader_runs: readerTimes.length,
      json_parse_ms: parseMs,
      json_parse_revive_ms: parseReviveMs,
      // Linear memory only grows: this is the high-water mark so far.
      wasm_memory_bytes: wasm.memory.buffer.byteLength,
    };
    if (db.len(dataset) !== n || docs.length !== n) {
      throw new Error(`${key}: mqlplay holds ${db.len(dataset)} documents, mingo ${docs.length}`);
    }
    log(`${key}: ${text.length} bytes; reader ${readerMs.toFixed(1)} ms, JSON.parse ${parseMs.toFixed(1)} ms`);

    for (const c of group) {
      const script = new BenchScript(c.script);
      const row = { id: c.id, kind: c.kind, dataset, size: n };
      out.cases.push(row);
      // One run of each first: both must give the same number of results,
      // or the comparison is meaningless and the case is not timed.
      let ours, theirs, oursMs, theirsMs, handMs, t0;
      try {
        t0 = performance.now();
        ours = db.run_size(script);
        oursMs = performance.now() - t0;
      } catch (e) {
        row.error = `mqlplay: ${e.message ?? e}`;
        log(`${c.id}: ${row.error}`);
        script.free();
        continue;
      }
      t0 = performance.now();
      db.last_to_js();
      const convMs = performance.now() - t0;
      const oursText = c.kind === "update" ? null : db.last_to_json_text();
      t0 = performance.now();
      const mingoResult = MINGO[c.id](docs);
      theirsMs = performance.now() - t0;
      theirs = size(mingoResult);
      row.result = ours;
      row.mingo_result = theirs;
      if (ours !== theirs) {
        row.error = `different answers: mqlplay ${ours} results, mingo ${theirs}`;
        out.failures.push(`${c.id}: ${row.error}`);
        log(`${c.id}: ${row.error}`);
        script.free();
        continue;
      }
      if (oursText !== null) row.same_answer = sameAnswer(oursText, mingoResult);
      const hand = HAND[c.id];
      if (hand) {
        t0 = performance.now();
        const handResult = hand(docs);
        handMs = performance.now() - t0;
        if (!sameAnswer(oursText, handResult)) {
          row.error = "different answers: mqlplay and the hand loop";
          out.failures.push(`${c.id}: ${row.error}`);
          log(`${c.id}: ${row.error}`);
          script.free();
          continue;
        }
      }

      // Alternate: a round of mqlplay, a round of mingo (and of the hand loop), ROUNDS times.
      const kOurs = callsFor(oursMs);
      const kTheirs = callsFor(theirsMs);
      const kHand = hand ? callsFor(handMs) : 0;
      // Slow cases get fewer rounds (at least 3) so the whole run stays short.
      const rounds = Math.max(3, Math.min(ROUNDS, Math.floor(CASE_BUDGET_MS / (Math.max(oursMs, ROUND_MS) + Math.max(theirsMs, ROUND_MS) + Math.max(convMs, ROUND_MS) / 2))));
      // The runs alone, then the hand-over to JavaScript on its own: with a
      // hand-over after each run, the garbage it left was collected beside
      // the next runs (on 2 cores), and find_history_ticker's run time (6,563
      // buckets, 160 ms of JavaScript objects each) varied 13–21 ms.
      const run = [], mingo = [], handTimes = [];
      for (let r = 0; r < rounds; r++) {
        gc();
        let runT = 0;
        for (let i = 0; i < kOurs; i++) {
          const a = performance.now();
          db.run_size(script);
          runT += performance.now() - a;
        }
        run.push(runT / kOurs);
        gc();
        const a = performance.now();
        for (let i = 0; i < kTheirs; i++) MINGO[c.id](docs);
        mingo.push((performance.now() - a) / kTheirs);
        if (hand) {
          gc();
          const h = performance.now();
          for (let i = 0; i < kHand; i++) hand(docs);
          handTimes.push((performance.now() - h) / kHand);
        }
      }
      // The last result as plain values (`last_to_js`), and the other way back
      // to JavaScript: one JSON string, then JSON.parse.
      const toJsMs = timeAlone(() => db.last_to_js(), Math.min(ROUNDS, 5), callsFor(convMs));
      const viaText = timeAlone(() => JSON.parse(db.last_to_json_text()), Math.min(ROUNDS, 5));
      Object.assign(row, {
        mqlplay_ms: median(run),
        to_js_ms: toJsMs,
        to_js_via_json_text_ms: viaText,
        mqlplay_e2e_ms: median(run) + toJsMs,
        mingo_ms: median(mingo),
        rounds,
        calls_per_round: { mqlplay: kOurs, mingo: kTheirs },
      });
      row.ratio = row.mingo_ms / row.mqlplay_ms;
      row.ratio_e2e = row.mingo_ms / row.mqlplay_e2e_ms;
      if (hand) {
        row.hand_ms = median(handTimes);
        row.calls_per_round.hand = kHand;
        // How many times the floor mqlplay takes (the "within 4×").
        row.over_hand = row.mqlplay_ms / row.hand_ms;
      }
      log(
        `${c.id} @${n}: mqlplay ${row.mqlplay_ms.toFixed(2)} ms (+${row.to_js_ms.toFixed(2)} to JS), ` +
          `mingo ${row.mingo_ms.toFixed(2)} ms, ratio ${row.ratio.toFixed(1)}x (${row.ratio_e2e.toFixed(1)}x with results in JS)` +
          (row.hand_ms != null ? `; hand loop ${row.hand_ms.toFixed(2)} ms (mqlplay ${row.over_hand.toFixed(1)}x it)` : "") +
          (row.same_answer === false ? " [answers differ in content]" : ""),
      );
      script.free();
    }
    db.free();
  }

  // What the page does on each Run (www/src/worker.js → `run_page`): the first run
  // reads the configuration; later runs with the same text start from a copy of the
  // kept database. Each returns JSON text (results, changed collections) for JSON.parse.
  const pageCases = [
    ["count_buy", "trades", 10000, 5],
    ["count_buy", "trades", 100000, 3],
  ];
  // As the worker does: an unchanged Database text does not cross into wasm again.
  let lastText = null;
  const pageRun = (text, script) => {
    const again = text === lastText && typeof wasm.mod.run_page_again === "function"
      ? wasm.mod.run_page_again(script, NOW, 0) : undefined;
    lastText = text;
    const res = JSON.parse(again ?? wasm.mod.run_page(text, script, NOW, 0));
    if (res.error) throw new Error(res.error.message);
    return res;
  };
  for (const [id, dataset, full, rounds] of pageCases) {
    const n = Math.round(full * SCALE);
    if (!ONLY.test(id) || typeof wasm.mod.run_page !== "function") continue;
    const c = spec.cases.find((x) => x.id === id);
    const text = configText(dataset, documents(dataset, n));
    let ms, warm;
    try {
      gc();
      const t0 = performance.now();
      pageRun(text, c.script);
      ms = performance.now() - t0;
      warm = timeAlone(() => pageRun(text, c.script), rounds);
    } catch (e) {
      out.page_run.push({ id, dataset, size: n, error: String(e.message ?? e) });
      continue;
    }
    out.page_run.push({ id, dataset, size: n, bytes: text.length, ms, warm_ms: warm, rounds });
    log(`page run ${id} @${n}: first ${ms.toFixed(0)} ms, then ${warm.toFixed(0)} ms`);
  }

  out.loadavg_end = loadavg();
  const text = JSON.stringify(out, null, 1);
  if (OUT) writeFileSync(OUT, text);
  else console.log(text);
  if (out.failures.length) {
    log(`FAILED: ${out.failures.length} case(s) gave different answers`);
    process.exitCode = 1;
  }
}

main().catch((e) => {
  console.error("node-bench:", e.stack ?? e);
  process.exit(2);
});
