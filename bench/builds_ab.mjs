// Several wasm builds of the engine in one Node process, each statement alternated
// between them (60 ms rounds): an A/B of builds (opt-levels, wasm-opt flags) that a busy
// machine disturbs less than separate processes do. Prints per case "min/median" ms.
// Each DIR holds mqlplay.js, mqlplay_bg.wasm (and collation.postcard), as www/pkg does.
//
//   node --expose-gc bench/builds_ab.mjs ROUNDS REGEX DIR1 DIR2 ...
import { readFileSync, copyFileSync, mkdtempSync } from "node:fs";
import { join, dirname } from "node:path";
import { tmpdir } from "node:os";
import { pathToFileURL, fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { documents, configText } from "./data.mjs";
const [rounds, re, ...pkgs] = process.argv.slice(2);
const here = dirname(fileURLToPath(import.meta.url));
const spec = JSON.parse(readFileSync(join(here, "cases.json"), "utf8"));
const cases = spec.cases.filter((c) => c.node && new RegExp(re).test(c.id));
cases.sort((a, b) => (a.kind === "update") - (b.kind === "update"));
const mods = [];
for (const p of pkgs) {
  const dir = mkdtempSync(join(tmpdir(), "ab-"));
  copyFileSync(join(p, "mqlplay.js"), join(dir, "mqlplay.mjs"));
  const mod = await import(pathToFileURL(join(dir, "mqlplay.mjs")).href);
  mod.initSync({ module: readFileSync(join(p, "mqlplay_bg.wasm")) });
  mods.push(mod);
}
const NOW = Date.UTC(2024, 0, 1);
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };
const byData = new Map();
for (const c of cases) { (byData.get(c.dataset) ?? byData.set(c.dataset, []).get(c.dataset)).push(c); }
const rows = [];
for (const [ds, group] of byData) {
  const n = group[0].node;
  const text = configText(ds, documents(ds, n));
  const load = pkgs.map(() => []);
  let dbs = [];
  for (let r = 0; r < 3; r++) for (let i = 0; i < mods.length; i++) {
    if (dbs[i]) dbs[i].free(); globalThis.gc?.();
    const t0 = performance.now(); dbs[i] = new mods[i].BenchDb(text, NOW, 0); load[i].push(performance.now() - t0);
  }
  rows.push([`load ${ds}`, load]);
  for (const c of group) {
    const scripts = mods.map((m) => new m.BenchScript(c.script));
    const times = pkgs.map(() => []);
    for (let i = 0; i < mods.length; i++) dbs[i].run_size(scripts[i]); // warm
    for (let r = 0; r < Number(rounds); r++) for (let i = 0; i < mods.length; i++) {
      const t0 = performance.now(); let k = 0;
      do { dbs[i].run_size(scripts[i]); k++; } while (performance.now() - t0 < 60);
      times[i].push((performance.now() - t0) / k);
    }
    rows.push([c.id, times]);
  }
  dbs.forEach((d) => d.free());
}
const names = pkgs.map((p) => p.split("/").pop());
console.log("case".padEnd(24), names.map((n) => n.padStart(16)).join(""));
for (const [id, t] of rows) console.log(id.padEnd(24), t.map((x) => `${Math.min(...x).toFixed(2)}/${med(x).toFixed(2)}`.padStart(16)).join(""));
