// Checks each tutorial translation (<lang>/<id>.json) against its English file
// (../<id>.json): one entry per step, every required field, as many hints, every
// check label translated, starter scripts with the same code. Exit 1 on a problem.
//   node www/tutorials/i18n/check.mjs [lang ...]
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const LANGS = ['pt-BR', 'ja', 'ko', 'de'];
const here = dirname(fileURLToPath(import.meta.url));
const lines = (t) => (Array.isArray(t) ? t : [t ?? '']);

function labels(x, acc = []) {
  if (Array.isArray(x)) x.forEach((v) => labels(v, acc));
  else if (x && typeof x === 'object') {
    for (const [k, v] of Object.entries(x)) {
      if (k === 'label' && typeof v === 'string') acc.push(v);
      else labels(v, acc);
    }
  }
  return acc;
}

/** Code of a script without its `//` comments (what a translation must keep). */
const code = (script) => lines(script).map((l) => l.replace(/\/\/.*$/, '').trimEnd()).join('\n').trim();

/** Problems of one overlay, as sentences (empty when it is complete). */
export function problems(lang, id) {
  const base = JSON.parse(readFileSync(join(here, '..', `${id}.json`), 'utf8'));
  const file = join(here, lang, `${id}.json`);
  if (!existsSync(file)) return [`${lang}/${id}.json is missing`];
  const tr = JSON.parse(readFileSync(file, 'utf8'));
  const out = [];
  const where = `${lang}/${id}.json`;
  for (const k of ['title', 'summary']) if (!tr[k]) out.push(`${where}: no ${k}`);
  if (!Array.isArray(tr.steps) || tr.steps.length !== base.steps.length) {
    out.push(`${where}: ${tr.steps?.length ?? 0} steps, the English file has ${base.steps.length}`);
    return out;
  }
  base.steps.forEach((b, i) => {
    const t = tr.steps[i] ?? {};
    const at = `${where} step ${i + 1}`;
    if (!t.title) out.push(`${at}: no title`);
    if (!lines(t.text).join('').trim()) out.push(`${at}: no text`);
    const want = (b.hints ?? []).length;
    if ((t.hints ?? []).length !== want) out.push(`${at}: ${(t.hints ?? []).length} hints, English has ${want}`);
    for (const l of labels(b.check)) {
      if (!t.labels?.[l]) out.push(`${at}: label "${l}" not translated`);
    }
    if (t.script !== undefined && code(t.script) !== code(b.script)) {
      out.push(`${at}: the script's code differs from English (only its comments may change)`);
    }
  });
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const index = JSON.parse(readFileSync(join(here, '..', 'index.json'), 'utf8'));
  const langs = process.argv.length > 2 ? process.argv.slice(2) : LANGS;
  const all = langs.flatMap((lang) => index.tutorials.flatMap((t) => problems(lang, t.id)));
  for (const p of all) console.error(p);
  console.error(all.length ? `${all.length} problems` : 'all translations complete');
  process.exit(all.length ? 1 : 0);
}
