// Combine the parts of a benchmark run into BENCHMARKS.md-ready markdown
// (stdout) and one JSON file.
//
//   node bench/report.mjs OUT_DIR
// reads OUT_DIR/{meta,native-notes,browser}.json, node-<i>.json (one per Node
// process; node.json from older runs), node-fast-<i>.json (the same for the page's fast
// engine) and Criterion's estimates; writes
// OUT_DIR/results.json. On a busy machine (meta.busy) it gives the figures,
// labelled so, and no verdict.
import { readFileSync, writeFileSync, existsSync, readdirSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { combineNode } from "./combine.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const dir = process.argv[2] ?? "target/bench";
const readJson = (f) => (existsSync(join(dir, f)) ? JSON.parse(readFileSync(join(dir, f), "utf8")) : null);
const meta = readJson("meta.json") ?? {};
const native = readJson("native-notes.json");
const nodeFiles = existsSync(dir) ? readdirSync(dir).filter((f) => /^node-\d+\.json$/.test(f)).sort() : [];
const node = nodeFiles.length ? combineNode(nodeFiles.map(readJson)) : readJson("node.json");
// The page's fast engine (www/pkg/mqlplay_fast_bg.wasm), measured the same way: node-fast-<i>.json.
const fastFiles = existsSync(dir) ? readdirSync(dir).filter((f) => /^node-fast-\d+\.json$/.test(f)).sort() : [];
const nodeFast = fastFiles.length ? combineNode(fastFiles.map(readJson)) : null;
const browser = readJson("browser.json");
const spec = JSON.parse(readFileSync(join(here, "cases.json"), "utf8"));

// ---- formatting -------------------------------------------------------------
const fmtMs = (ms) =>
  ms == null || Number.isNaN(ms)
    ? "–"
    : ms < 0.001
      ? `${(ms * 1e6).toFixed(0)} ns`
      : ms < 1
        ? `${(ms * 1000).toFixed(ms < 0.01 ? 2 : ms < 0.1 ? 1 : 0)} µs`
        : ms < 1000
          ? `${ms.toFixed(ms < 10 ? 2 : ms < 100 ? 1 : 0)} ms`
          : `${(ms / 1000).toFixed(2)} s`;
const fmtRate = (perSec) =>
  perSec == null ? "–" : perSec >= 1e6 ? `${(perSec / 1e6).toFixed(1)} M/s` : perSec >= 1e3 ? `${(perSec / 1e3).toFixed(0)} k/s` : `${perSec.toFixed(0)} /s`;
const fmtBytes = (b) =>
  b == null ? "–" : b >= 1 << 20 ? `${(b / (1 << 20)).toFixed(1)} MiB` : b >= 1024 ? `${(b / 1024).toFixed(0)} KiB` : `${b} B`;
const fmtRatio = (r) => (r == null || !Number.isFinite(r) ? "–" : r >= 10 ? `${r.toFixed(0)}×` : `${r.toFixed(1)}×`);
const fmtN = (n) => (n == null ? "–" : Number(n).toLocaleString("en-US"));
const BUSY = meta.busy === true;
// The targets are stated on the full data sets: a scaled Node run is not judged
// either, nor a Node figure from fewer than 3 processes (one process is one sample).
const SCALED = meta.scale != null && meta.scale !== 1;
const FEW = node != null && (node.processes ?? 1) < 3;
const verdict = (ok, fromNode = false) =>
  ok == null
    ? "not measured"
    : BUSY
      ? "no verdict (busy machine)"
      : fromNode && SCALED
        ? "no verdict (scaled data)"
        : fromNode && FEW
          ? "no verdict (fewer than 3 Node processes)"
          : ok
            ? "**met**"
            : "**not met**";
/** A figure with its spread over processes: "12.3 ms (11.9–13.0)". */
const withSpread = (row, f, fmt) => {
  const s = row[`${f}_spread`];
  return s && s.n > 1 ? `${fmt(row[f])} (${fmt(s.min)}–${fmt(s.max)})` : fmt(row[f]);
};
const table = (head, rows) =>
  [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");

// ---- Criterion's estimates ----------------------------------------------------
function criterionMedianMs(group, size) {
  if (!native) return null;
  const f = join(native.criterion_dir, group, String(size), "new", "estimates.json");
  if (!existsSync(f)) return null;
  const e = JSON.parse(readFileSync(f, "utf8"));
  return e.median.point_estimate / 1e6;
}
const nativeNote = (id, size) => native?.cases.find((c) => c.id === id && c.size === size);

// ---- assemble -----------------------------------------------------------------
const results = { meta, native: [], reader: [], node: node ?? null, browser: browser ?? null, targets: [] };
const out = [];
const say = (s = "") => out.push(s);

say(`## Figures (${meta.date ?? "date unknown"})`);
say();
say(`Machine: ${meta.cpu ?? "?"}, ${meta.cores ?? "?"} cores, ${meta.memory ?? "?"} memory; ${meta.os ?? ""}.`);
say(
  `Versions: ${meta.rustc ?? "rustc ?"}; Criterion ${meta.criterion ?? "?"}; Node ${node?.node ?? meta.node ?? "?"} (V8 ${node?.v8 ?? "?"}); mingo ${node?.mingo ?? "?"}; ${meta.chromium ?? "Chromium ?"}; mqlplay ${meta.commit ?? "?"}.`,
);
if (meta.loadavg_start) {
  say(
    `Load average (1, 5, 15 min) at the start: ${meta.loadavg_start}` +
      (meta.loadavg_measuring ? `; after the builds, before measuring: ${meta.loadavg_measuring}` : "") +
      `; at the end: ${meta.loadavg_end ?? "?"}.`,
  );
}
if (BUSY) {
  say();
  say(
    `**Figures from a busy machine: no verdict.** ${meta.busy_reasons.join("; ")}. ` +
      `Absolute times are inflated and the ratios move with the neighbours (mingo's garbage collector competes for the cores); the targets below are not judged. Take the figures on a quiet machine (1-minute load ≤ ${meta.max_load ?? 0.5} at the start, no build or browser running).`,
  );
} else if (meta.busy === false) {
  say(`Quiet machine: 1-minute load ≤ ${meta.max_load} at the start and no other build or browser running at the start, before measuring or at the end.`);
}
if (meta.scale != null && meta.scale !== 1) say(`**Node cases on ${meta.scale}× the data** (MQLPLAY_BENCH_SCALE): not comparable with the targets.`);
if (meta.skipped?.length) {
  say(`Left out (MQLPLAY_BENCH_SKIP): ${meta.skipped.join(", ")}.${meta.skipped.includes("build") ? " **Not built by this run: www/pkg and www/dist were measured as found, and may not be this commit's.**" : ""}`);
}
say(`Command: \`${meta.command ?? "./build.sh bench"}\`${meta.duration_s ? ` (this run: ${Math.round(meta.duration_s)} s, builds included)` : ""}.`);
say();

// Data sets and the cross-language check.
const sameData = [];
if (native && node) {
  for (const [key, d] of Object.entries(node.data)) {
    const n = native.data[key];
    if (n) sameData.push({ key, same: n.fnv1a === d.fnv1a && n.bytes === d.bytes });
  }
}
if (sameData.length) {
  const bad = sameData.filter((s) => !s.same);
  say(
    bad.length
      ? `**Data mismatch**: Rust and JavaScript generated different bytes for ${bad.map((b) => b.key).join(", ")}.`
      : `Same data in both harnesses: the generated texts have equal FNV-1a hashes and lengths (${sameData.map((s) => s.key).join(", ")}).`,
  );
  say();
}

// Reader.
if (native) {
  say("### Native: reading a database configuration (trades)");
  say();
  const rows = [];
  for (const group of ["reader_extjson", "reader_shell"]) {
    for (const size of [1000, 10000, 100000]) {
      const note = nativeNote(group, size);
      if (!note) continue;
      const ms = criterionMedianMs(group, size);
      const entry = { group, size, bytes: note.bytes, ms, error: note.error ?? null };
      results.reader.push(entry);
      rows.push([
        group === "reader_extjson" ? "Extended JSON (`db = {\"trades\": [...]}`)" : "mongosh syntax (`ISODate(...)`, unquoted keys)",
        fmtN(size),
        fmtBytes(note.bytes),
        note.error ? `error: ${note.error}` : fmtMs(ms),
        ms ? `${(note.bytes / (1 << 20) / (ms / 1000)).toFixed(1)} MiB/s` : "–",
      ]);
    }
  }
  say(table(["form", "trades", "text", "median", "throughput"], rows));
  say();
}

// Native cases.
if (native) {
  say("### Native: queries, sort, updates, aggregation (median per statement)");
  say();
  const sizes = [1000, 10000, 100000];
  const rows = [];
  for (const c of spec.cases) {
    const cells = sizes.map((s) => {
      if (!c.native.includes(s)) return "";
      const note = nativeNote(c.id, s);
      if (!note) return "–";
      if (note.error) return "not supported";
      return fmtMs(criterionMedianMs(c.id, s));
    });
    const big = Math.max(...c.native);
    const note = nativeNote(c.id, big);
    const ms = note && !note.error ? criterionMedianMs(c.id, big) : null;
    const rate = ms ? big / (ms / 1000) : null;
    results.native.push({ id: c.id, dataset: c.dataset, sizes: Object.fromEntries(c.native.map((s) => [s, criterionMedianMs(c.id, s)])), docs_per_s: rate, result: note?.result ?? null, error: note?.error ?? null });
    rows.push([`\`${c.id}\` ${c.label}`, c.dataset, ...cells, fmtRate(rate), note?.error ? `error: ${note.error.slice(0, 80)}` : fmtN(note?.result)]);
  }
  say(table(["case", "data", "1,000 docs", "10,000 docs", "100,000 docs", "docs/s at the largest", "result at the largest"], rows));
  say();
  say("Result: documents returned, the count, or `modifiedCount` for updates. Documents are top-level documents of the collection (a bucket holds 10 trades, a product 10 reviews, a sensor 24 hourly totals).");
  say();
}

// Node: wasm vs mingo.
if (node) {
  say(`### Node: mqlplay (wasm) beside mingo ${node.mingo} and a hand loop, same process, same data`);
  say();
  const procs = node.processes ?? 1;
  say(
    `${procs} separate Node process${procs === 1 ? "" : "es"}, each with ${node.rounds} alternating rounds (a round of mqlplay, then of mingo, then of the hand loop where there is one; each round about ${node.round_ms} ms or one call) and its medians. ` +
      `Each figure is the median of the processes' medians, with the spread (lowest–highest process) in brackets; a ratio is taken within each process, then the same. ` +
      `The hand loop is plain JavaScript over the objects mingo gets (a \`for\` loop with the filter written by hand, then sort and limit): the floor; its answers are checked equal to mqlplay's. ` +
      `"with results in JS" adds handing the last result to JavaScript as plain objects, as the page does (relaxed Extended JSON written in one pass as JSON text, then \`JSON.parse\`), timed on its own after the rounds.`,
  );
  say();
  const rows = [];
  for (const r of node.cases) {
    const ok = !r.error;
    rows.push([
      `\`${r.id}\``,
      `${r.dataset} ${fmtN(r.size)}`,
      ok ? withSpread(r, "mqlplay_ms", fmtMs) : `error: ${r.error.slice(0, 90)}`,
      ok ? fmtMs(r.to_js_ms) : "",
      ok ? withSpread(r, "mingo_ms", fmtMs) : "",
      ok ? withSpread(r, "ratio", fmtRatio) : "",
      ok ? fmtRatio(r.ratio_e2e) : "",
      ok && r.hand_ms != null ? withSpread(r, "hand_ms", fmtMs) : "",
      ok && r.over_hand != null ? withSpread(r, "over_hand", fmtRatio) : "",
      ok ? `${fmtN(r.result)}${r.same_answer === false ? " (content differs)" : r.same_answer ? " (identical)" : ""}` : "",
    ]);
  }
  say(table(["case", "data", "mqlplay wasm", "+ results to JS", "mingo", "mingo / mqlplay", "… with results in JS", "hand loop", "mqlplay / hand loop", "results (all)"], rows));
  say();
  if (node.failures.length) {
    say(`**Different answers** (these cases were not timed): ${node.failures.join("; ")}.`);
    say();
  }
  const viaText = node.cases.filter((r) => !r.error && r.kind !== "update" && r.to_js_ms > 0.05);
  if (viaText.length) {
    say("Handing results to JavaScript, both through one relaxed Extended JSON text: `JSON.parse` called from wasm (js_sys) vs the text returned to JavaScript and parsed there (what the page's worker does):");
    say();
    say(
      table(
        ["case", "results", "JSON.parse from wasm", "text to JS + JSON.parse"],
        viaText.map((r) => [`\`${r.id}\``, fmtN(r.result), fmtMs(r.to_js_ms), fmtMs(r.to_js_via_json_text_ms)]),
      ),
    );
    say();
  }
  say("### Loading the data");
  say();
  const rows2 = [];
  for (const [key, d] of Object.entries(node.data)) {
    const nativeMs = key.startsWith("trades/") ? criterionMedianMs("reader_extjson", d.documents) : null;
    rows2.push([
      key,
      fmtBytes(d.bytes),
      nativeMs ? fmtMs(nativeMs) : "–",
      withSpread(d, "reader_ms", fmtMs),
      withSpread(d, "json_parse_ms", fmtMs),
      withSpread(d, "json_parse_revive_ms", fmtMs),
      fmtRatio(d.reader_ms / d.json_parse_ms),
      fmtBytes(d.wasm_memory_bytes),
    ]);
  }
  say(table(["data", "text", "mqlplay reader, native", "mqlplay reader, wasm", "JSON.parse", "JSON.parse + dates", "wasm reader / JSON.parse", "wasm memory after"], rows2));
  say();
  say(`The same bytes: the configuration is \`db = \` followed by JSON (Extended JSON dates \`{"$date": ...}\`); JSON.parse reads the JSON part. mingo needs \`Date\` objects for date comparisons, hence the reviver column. wasm: ${fmtBytes(node.wasm.bytes)}, compiled and instantiated in ${fmtMs(node.wasm.instantiate_ms)}.`);
  say();
  if (node.page_run.length) {
    say("What the page does on Run (the worker's `run_page(db, script)`: the first run reads the configuration; later runs on the same text start from a copy of the kept database; results and changed collections come back as JSON text):");
    say();
    say(table(["script", "data", "text", "first run", "next runs (median)"], node.page_run.map((p) => [`\`${p.id}\``, `${p.dataset} ${fmtN(p.size)}`, fmtBytes(p.bytes), p.error ? `error: ${p.error}` : withSpread(p, "ms", fmtMs), p.error ? "" : withSpread(p, "warm_ms", fmtMs)])));
    say();
  }
}

// Node: the fast engine.
if (nodeFast) {
  say("### Node: the page's fast engine, measured the same way");
  say();
  say(
    `The same engine built at opt-level 2 (\`www/pkg/mqlplay_fast_bg.wasm\`, ${fmtBytes(nodeFast.wasm.bytes)}; the small engine above is built at opt-level "z" for the page's first download). ` +
      `The page fetches it only once a run finds the data large (a Database text of 1 MiB or more, or a run of 200 ms or more) and runs later scripts on it (www/src/engine.js). ` +
      `${nodeFast.processes} separate Node processes, as above; "small engine" repeats the first table's figure.`,
  );
  say();
  const small = (id, size) => node?.cases.find((r) => r.id === id && r.size === size);
  say(
    table(
      ["case", "data", "small engine", "fast engine", "mingo", "mingo / fast engine", "hand loop", "fast engine / hand loop", "results"],
      nodeFast.cases.map((r) =>
        r.error
          ? [`\`${r.id}\``, `${r.dataset} ${fmtN(r.size)}`, "", `error: ${r.error.slice(0, 90)}`, "", "", "", "", ""]
          : [
              `\`${r.id}\``,
              `${r.dataset} ${fmtN(r.size)}`,
              fmtMs(small(r.id, r.size)?.mqlplay_ms),
              withSpread(r, "mqlplay_ms", fmtMs),
              withSpread(r, "mingo_ms", fmtMs),
              withSpread(r, "ratio", fmtRatio),
              r.hand_ms != null ? withSpread(r, "hand_ms", fmtMs) : "",
              r.over_hand != null ? withSpread(r, "over_hand", fmtRatio) : "",
              `${fmtN(r.result)}${r.same_answer === false ? " (content differs)" : r.same_answer ? " (identical)" : ""}`,
            ],
      ),
    ),
  );
  say();
  say(
    table(
      ["data", "reader, small engine", "reader, fast engine", "JSON.parse + dates", "fast reader / (JSON.parse + dates)"],
      Object.entries(nodeFast.data).map(([key, d]) => [
        key,
        fmtMs(node?.data[key]?.reader_ms),
        withSpread(d, "reader_ms", fmtMs),
        withSpread(d, "json_parse_revive_ms", fmtMs),
        fmtRatio(d.reader_ms / d.json_parse_revive_ms),
      ]),
    ),
  );
  say();
}

// Browser.
if (browser) {
  say("### The page in headless Chromium");
  say();
  if (browser.skipped) {
    say(`Skipped: ${browser.skipped}`);
  } else {
    const th = browser.throttle;
    say(
      table(
        ["what", "figure"],
        [
          ["wasm, raw / gzip -9", `${fmtBytes(browser.wasm_bytes)} / ${fmtBytes(browser.wasm_gzip_bytes)}`],
          [`whole page as sent gzipped (${browser.page_files} files: HTML, JS, CSS, wasm), raw / gzip`, `${fmtBytes(browser.page_bytes)} / ${fmtBytes(browser.page_gzip_bytes)}`],
          ["wasm compiled while it downloads (compileStreaming/instantiateStreaming of the fetch)", browser.wasm_streaming ? "yes" : "**no**"],
          [`navigation to first result, localhost (median of ${browser.runs} fresh profiles)`, `${fmtMs(browser.first_result_ms)} (${(browser.first_result_samples_ms ?? []).map(fmtMs).join(", ")})`],
          [
            `… throttled: ${th ? `${(th.downloadThroughput * 8) / 1e6} Mbit/s down, ${th.latency} ms round trip` : "?"} (DevTools \`Network.emulateNetworkConditions\`)`,
            `${fmtMs(browser.throttled_first_result_ms)} (${(browser.throttled_first_result_samples_ms ?? []).map(fmtMs).join(", ")}); the wasm's download ${fmtMs(browser.throttled_wasm_fetch_ms)}, its bytes need ${fmtMs(browser.throttled_wasm_floor_ms)}`,
          ],
          ["cold start with the bucket tutorial's data (share link)", fmtMs(browser.bucket_first_result_ms)],
          ["Run again on the bucket tutorial's data (click to result, median)", fmtMs(browser.bucket_rerun_ms)],
        ],
      ),
    );
    if (browser.notes?.length) {
      say();
      for (const n of browser.notes) say(`- ${n}`);
    }
  }
  say();
}

// Targets.
const targets = [];
const nodeRow = (id) => node?.cases.find((r) => r.id === id);
{
  const readerMs = criterionMedianMs("reader_extjson", 100000);
  const parseMs = node?.data["trades/100000"]?.json_parse_ms;
  const r = readerMs && parseMs ? readerMs / parseMs : null;
  targets.push({
    issue: 2,
    what: "reader on ~10 MB of trades within 3× of Node's JSON.parse of the same bytes (native)",
    figure: r ? `${fmtMs(readerMs)} vs ${fmtMs(parseMs)}: ${fmtRatio(r)}` : "–",
    met: r ? r <= 3 : null,
  });
}
for (const c of spec.cases) {
  const t = c.targets ?? {};
  if (t.native_docs_per_s) {
    const big = Math.max(...c.native);
    const ms = nativeNote(c.id, big)?.error ? null : criterionMedianMs(c.id, big);
    const rate = ms ? big / (ms / 1000) : null;
    targets.push({
      issue: c.issue,
      what: `\`${c.id}\` natively on ${fmtN(big)} ${c.dataset}: ≥ ${fmtRate(t.native_docs_per_s)} documents`,
      figure: rate ? `${fmtRate(rate)} (${fmtMs(ms)})` : nativeNote(c.id, big)?.error ?? "–",
      met: rate ? rate >= t.native_docs_per_s : null,
    });
  }
  if (t.index_speedup) {
    const big = Math.max(...c.native);
    const scan = criterionMedianMs(c.id, big);
    const indexed = criterionMedianMs(t.index_speedup.over, big);
    const r = scan && indexed ? scan / indexed : null;
    targets.push({
      issue: c.issue,
      what: `\`${t.index_speedup.over}\` ≥ ${t.index_speedup.min}× faster than with hint({$natural: 1}) (${c.dataset} ${fmtN(big)})`,
      figure: r ? `${fmtMs(indexed)} vs ${fmtMs(scan)}: ${fmtRatio(r)}` : "–",
      met: r ? r >= t.index_speedup.min : null,
    });
  }
  if (t.node_ratio) {
    const r = nodeRow(c.id);
    const ok = r && !r.error;
    targets.push({
      issue: c.issue,
      what: `\`${c.id}\` wasm ≥ ${t.node_ratio}× faster than mingo (${c.dataset} ${fmtN(r?.size ?? c.node)})`,
      figure: ok ? `${withSpread(r, "ratio", fmtRatio)} (${fmtRatio(r.ratio_e2e)} with results in JS)` : r?.error ?? "–",
      node: true,
      met: ok ? r.ratio_e2e >= t.node_ratio : null,
      met_engine_only: ok ? r.ratio >= t.node_ratio : null,
    });
  }
}
/** #22's targets for one engine's Node figures: ≥ 5× mingo on every case, within 4× of the hand loop. */
function engineTargets(n, label) {
  const timed = n.cases.filter((r) => !r.error);
  if (timed.length) {
    const worst = timed.reduce((a, b) => (b.ratio < a.ratio ? b : a));
    const below = timed.filter((r) => r.ratio < 5);
    targets.push({
      issue: 22,
      what: `${label}: ≥ 5× mingo on every Node case, engine only (${timed.length} cases)`,
      figure: `lowest: \`${worst.id}\` ${withSpread(worst, "ratio", fmtRatio)}${below.length ? `; below 5×: ${below.map((r) => r.id).join(", ")}` : ""}`,
      node: true,
      met: below.length === 0,
    });
  }
  for (const r of n.cases.filter((x) => x.over_hand != null)) {
    targets.push({
      issue: 22,
      what: `${label}: \`${r.id}\` within 4× of the hand loop (${r.dataset} ${fmtN(r.size)})`,
      figure: `${withSpread(r, "over_hand", fmtRatio)} (${fmtMs(r.mqlplay_ms)} vs ${fmtMs(r.hand_ms)})`,
      node: true,
      met: r.over_hand <= 4,
    });
  }
  const trades = n.data["trades/100000"];
  if (trades) {
    targets.push({
      issue: 22,
      what: `${label}: the reader on trades/100000 no slower than \`JSON.parse\` with a date reviver (same bytes)`,
      figure: `${withSpread(trades, "reader_ms", fmtMs)} vs ${withSpread(trades, "json_parse_revive_ms", fmtMs)}`,
      node: true,
      met: trades.reader_ms <= trades.json_parse_revive_ms,
    });
  }
}
// #22: ratios over the processes' medians; the page as users feel it.
if (node) {
  engineTargets(node, "small engine (the page's wasm)");
  const q = node.cases.find((r) => r.id === "count_buy" && !r.error);
  const p = node.page_run.find((x) => x.id === "count_buy" && q && x.size === q.size && !x.error);
  if (p) {
    targets.push({
      issue: 22,
      what: `the page's warm re-run of count_buy (trades ${fmtN(p.size)}) ≤ the query's time + 10 ms`,
      figure: `${withSpread(p, "warm_ms", fmtMs)} vs ${fmtMs(q.mqlplay_ms)} + 10 ms`,
      node: true,
      met: p.warm_ms <= q.mqlplay_ms + 10,
    });
  }
}
// The same for the fast engine (what the page runs once the data is large).
if (nodeFast) engineTargets(nodeFast, "fast engine");
{
  const ms = nativeNote("count_buy", 100000)?.error ? null : criterionMedianMs("count_buy", 100000);
  if (ms) targets.push({ issue: 22, what: "`count_buy` natively on 100,000 trades: ≥ 50 M documents/s", figure: `${fmtRate(100000 / (ms / 1000))} (${fmtMs(ms)})`, met: 100000 / (ms / 1000) >= 50e6 });
}
if (browser && !browser.skipped) {
  targets.push({ issue: 22, what: "navigation to the first result on localhost ≤ 1 s", figure: fmtMs(browser.first_result_ms), met: browser.first_result_ms <= 1000 });
  targets.push({
    issue: 22,
    what: "navigation to the first result at 10 Mbit/s, 40 ms round trip ≤ 2 s",
    figure: `${fmtMs(browser.throttled_first_result_ms)}${browser.throttle_failed ? " (the throttle did not reach the wasm's download)" : ""}`,
    met: browser.throttle_failed ? null : browser.throttled_first_result_ms <= 2000,
  });
  targets.push({ issue: 22, what: "whole page ≤ 1.2 MB gzipped", figure: `${fmtN(browser.page_gzip_bytes)} bytes`, met: browser.page_gzip_bytes <= 1.2e6 });
}
results.targets = targets;
say("### Targets from the issues");
say();
say("A Node figure is the median over the processes (its spread in brackets); the verdict is on that median.");
say();
if (BUSY) {
  say("Busy machine: the figures are given, the verdicts are not (see the load above).");
  say();
} else if (SCALED || FEW) {
  say(`Node cases ${SCALED ? `on ${meta.scale}× the data` : `from ${node.processes} process(es)`}: their figures are given, their verdicts are not.`);
  say();
}
say(
  table(
    ["issue", "target", "measured", "verdict"],
    targets.map((t) => [
      `#${t.issue}`,
      t.what,
      t.figure,
      t.met_engine_only != null && t.met_engine_only !== t.met
        ? `${verdict(t.met, t.node)} with results in JS; ${verdict(t.met_engine_only, t.node)} engine only`
        : verdict(t.met, t.node),
    ]),
  ),
);
say();

writeFileSync(join(dir, "results.json"), JSON.stringify(results, null, 1));
console.log(out.join("\n"));
