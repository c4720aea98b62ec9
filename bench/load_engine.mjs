// A wasm build of the engine loaded into this process. DIR holds mqlplay.js
// and mqlplay_bg.wasm (www/pkg); DIR:fast loads its mqlplay_fast_bg.wasm (the
// page's fast engine) under the same glue.
import { readFileSync, copyFileSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { pathToFileURL } from "node:url";

export async function loadEngine(arg) {
  const [dir, which] = arg.split(":");
  const tmp = mkdtempSync(join(tmpdir(), "mqlplay-engine-"));
  copyFileSync(join(dir, "mqlplay.js"), join(tmp, "mqlplay.mjs"));
  const mod = await import(pathToFileURL(join(tmp, "mqlplay.mjs")).href);
  const wasm = which === "fast" ? "mqlplay_fast_bg.wasm" : "mqlplay_bg.wasm";
  mod.initSync({ module: readFileSync(join(dir, wasm)) });
  return { label: arg, mod };
}
