// Several processes of bench/node.mjs into one set of figures: per case the
// median of the processes' medians and the spread (min–max over processes).
// One process is one sample: how V8 spreads its threads over the cores, and
// where the allocator put the data, differ from one process to the next.

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** {median, min, max, n} of the finite numbers among `xs`; null when there are none. */
export function spread(xs) {
  const v = xs.filter((x) => typeof x === "number" && Number.isFinite(x));
  if (!v.length) return null;
  return { median: median(v), min: Math.min(...v), max: Math.max(...v), n: v.length };
}

const CASE_FIGURES = ["mqlplay_ms", "to_js_ms", "to_js_via_json_text_ms", "mqlplay_e2e_ms", "mingo_ms", "ratio", "ratio_e2e", "hand_ms", "over_hand"];
const DATA_FIGURES = ["reader_ms", "json_parse_ms", "json_parse_revive_ms", "wasm_memory_bytes"];
const PAGE_FIGURES = ["ms", "warm_ms"];

/** Rows with the same key from every run, in the first run's order. */
function byKey(runs, rowsOf, keyOf) {
  const groups = new Map();
  for (const run of runs) {
    for (const row of rowsOf(run)) {
      const k = keyOf(row);
      if (!groups.has(k)) groups.set(k, []);
      groups.get(k).push(row);
    }
  }
  return groups;
}

/** Each figure's median over the rows (the row's own field), its spread beside it (`<figure>_spread`). */
function merge(rows, figures) {
  const out = { ...rows[0] };
  for (const f of figures) {
    const s = spread(rows.map((r) => r[f]));
    if (!s) continue;
    out[f] = s.median;
    out[`${f}_spread`] = s;
  }
  return out;
}

/**
 * The runs (node.json objects, one per process) as one object of the same
 * shape, plus `processes` and per figure `<figure>_spread`. A case that failed
 * in any process keeps that process's error.
 */
export function combineNode(runs) {
  if (!runs.length) return null;
  const first = runs[0];
  const cases = [];
  for (const rows of byKey(runs, (r) => r.cases, (c) => `${c.id}@${c.size}`).values()) {
    const failed = rows.find((r) => r.error);
    const ok = rows.filter((r) => !r.error);
    const row = ok.length ? merge(ok, CASE_FIGURES) : { ...rows[0] };
    if (failed) row.error = failed.error;
    row.same_answer = rows.every((r) => r.same_answer !== false) ? rows[0].same_answer : false;
    row.processes = ok.length;
    cases.push(row);
  }
  const data = {};
  for (const [k, rows] of byKey(runs, (r) => Object.entries(r.data).map(([key, d]) => ({ key, ...d })), (d) => d.key)) {
    const { key, ...d } = merge(rows, DATA_FIGURES);
    data[k] = d;
  }
  const pageRun = [];
  for (const rows of byKey(runs, (r) => r.page_run, (p) => `${p.id}@${p.size}`).values()) {
    const ok = rows.filter((r) => !r.error);
    pageRun.push(ok.length ? merge(ok, PAGE_FIGURES) : rows[0]);
  }
  return {
    ...first,
    processes: runs.length,
    wasm: { ...first.wasm, instantiate_ms: median(runs.map((r) => r.wasm.instantiate_ms)) },
    data,
    cases,
    page_run: pageRun,
    failures: [...new Set(runs.flatMap((r) => r.failures))],
    loadavg: runs.map((r) => ({ start: r.loadavg_start, end: r.loadavg_end })),
  };
}
