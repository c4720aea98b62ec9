// The first run of a case on freshly loaded data beside its warm run: what a
// run costs before the scan columns it builds exist (storage::columns), and
// after. Each (build, case) is measured in PROCESSES separate Node processes;
// the figures are their medians with the spread.
//
//   node bench/first_run.mjs [--processes 3] DIR [DIR:fast ...] -- CASE_ID ...
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { documents, configText } from "./data.mjs";
import { loadEngine } from "./load_engine.mjs";

const here = new URL(".", import.meta.url).pathname;
const spec = JSON.parse(readFileSync(join(here, "cases.json"), "utf8"));
const NOW = Date.UTC(2024, 0, 1);
const WARM_RUNS = 15;
const args = process.argv.slice(2);

/** One process: load, run once (first), then WARM_RUNS times (median). */
async function child(dir, id) {
  const { mod } = await loadEngine(dir);
  const c = spec.cases.find((x) => x.id === id);
  if (!c || c.node == null) throw new Error(`no Node case ${id}`);
  const db = new mod.BenchDb(configText(c.dataset, documents(c.dataset, c.node)), NOW, 0);
  const script = new mod.BenchScript(c.script);
  let t0 = performance.now();
  db.run_size(script);
  const first = performance.now() - t0;
  const warm = [];
  for (let i = 0; i < WARM_RUNS; i++) {
    t0 = performance.now();
    db.run_size(script);
    warm.push(performance.now() - t0);
  }
  warm.sort((a, b) => a - b);
  console.log(JSON.stringify({ first, warm: warm[WARM_RUNS >> 1] }));
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const ms = (x) => x.toFixed(2);

if (args[0] === "--child") {
  await child(args[1], args[2]);
} else {
  let processes = 3;
  if (args[0] === "--processes") processes = Number(args.splice(0, 2)[1]);
  const split = args.indexOf("--");
  const dirs = args.slice(0, split);
  const ids = args.slice(split + 1);
  if (split < 1 || ids.length === 0) {
    console.error("usage: node bench/first_run.mjs [--processes N] DIR [DIR:fast ...] -- CASE_ID ...");
    process.exit(2);
  }
  console.log(`| case | build | first run, ms | warm run, ms |\n|---|---|---|---|`);
  for (const id of ids) {
    for (const dir of dirs) {
      const runs = [];
      for (let p = 0; p < processes; p++) {
        const out = execFileSync(process.execPath, [new URL(import.meta.url).pathname, "--child", dir, id]);
        runs.push(JSON.parse(out.toString()));
      }
      const cell = (k) => {
        const xs = runs.map((r) => r[k]);
        return `${ms(median(xs))} (${ms(Math.min(...xs))}–${ms(Math.max(...xs))})`;
      };
      console.log(`| ${id} | ${dir} | ${cell("first")} | ${cell("warm")} |`);
    }
  }
}
