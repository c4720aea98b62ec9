// Bundle the page: src/boot.js → dist/boot.js (starts the engine early),
// src/main.js → dist/app.js, src/worker.js → dist/worker.js,
// src/style.css → dist/style.css; the time-zone data and stop words beside them. The wasm package (pkg/) stays external:
// both bundles import ../pkg/mqlplay.js, which resolves the same from dist/ and src/.
import * as esbuild from 'esbuild';
import { rmSync, mkdirSync, copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';

const watch = process.argv.includes('--watch');
const options = {
  entryPoints: { boot: 'src/boot.js', app: 'src/main.js', worker: 'src/worker.js', style: 'src/style.css' },
  splitting: true, // boot.js and app.js share one engine module (one worker, one wasm module)
  chunkNames: 'chunk-[hash]',
  outdir: 'dist',
  bundle: true,
  format: 'esm',
  minify: true,
  sourcemap: false,
  target: ['es2022'],
  external: ['../pkg/mqlplay.js'],
  legalComments: 'none',
  logLevel: 'warning',
};
rmSync('dist', { recursive: true, force: true }); // no stale chunks
// The time zones' offsets and display names, which the engine's worker fetches when a
// run first needs them (the wasm carries only the names: src/tzdb/mod.rs).
mkdirSync('dist', { recursive: true });
copyFileSync('../src/tzdb/tzdata.bin', 'dist/tzdata.bin');
copyFileSync('../src/tzdb/names.tsv', 'dist/tznames.tsv');
// Likewise the text search's stop words: each language's list after a `## language` line
// (src/fts/stop_words.rs reads it).
const lists = '../src/fts/stop_words';
writeFileSync('dist/stop_words.txt', readdirSync(lists).filter((f) => f.endsWith('.txt')).sort()
  .map((f) => `## ${f.slice(0, -4)}\n${readFileSync(`${lists}/${f}`, 'utf8')}\n`).join(''));
if (watch) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
} else {
  await esbuild.build(options);
}
