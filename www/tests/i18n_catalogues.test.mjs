// The page's message catalogues (www/i18n/<lang>.json) against English: the same
// keys, the same parameters, code kept; every key the page asks for exists; every
// template has a name. No browser: `node --test tests/i18n_catalogues.test.mjs`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const www = join(dirname(fileURLToPath(import.meta.url)), '..');
const read = (p) => readFileSync(join(www, p), 'utf8');
const catalogue = (lang) => JSON.parse(read(`i18n/${lang}.json`));
const LANGS = ['pt-BR', 'ja', 'ko', 'de'];
const en = catalogue('en');

/** The parameter names a template uses: `{name}` and `{name|one|other}`. */
const params = (s) => [...new Set([...s.matchAll(/\{(\w+)(?:\|[^|}]*\|[^}]*)?\}/g)].map((m) => m[1]))].sort();
/** Code spans that must survive translation: operators, calls, field names. */
const codeSpans = (s) => [...s.matchAll(/`([^`]+)`/g)].map((m) => m[1]).filter((c) => /[$(_]/.test(c)).sort();

test('the catalogue folder holds English and the four translations', () => {
  assert.deepEqual(readdirSync(join(www, 'i18n')).filter((f) => f.endsWith('.json')).sort(),
    ['de.json', 'en.json', 'ja.json', 'ko.json', 'pt-BR.json']);
});

for (const lang of LANGS) {
  test(`${lang}: the same keys as English`, () => {
    const tr = catalogue(lang);
    const missing = Object.keys(en).filter((k) => !(k in tr));
    const extra = Object.keys(tr).filter((k) => !(k in en));
    assert.deepEqual(missing, [], `${lang} lacks keys English has`);
    assert.deepEqual(extra, [], `${lang} has keys English lacks`);
  });

  test(`${lang}: every text is translated, with English's parameters and code`, () => {
    const tr = catalogue(lang);
    for (const [k, v] of Object.entries(tr)) {
      assert.equal(typeof v, 'string', `${lang} ${k}`);
      assert.ok(v.trim().length > 0, `${lang} ${k} is empty`);
      assert.deepEqual(params(v), params(en[k]), `${lang} ${k}: parameters`);
      assert.deepEqual(codeSpans(v), codeSpans(en[k]), `${lang} ${k}: code spans`);
    }
  });
}

test('every key the page asks for is in the English catalogue', () => {
  const files = [
    'index.html',
    ...readdirSync(join(www, 'src')).filter((f) => f.endsWith('.js') && f !== 'i18n.js').map((f) => `src/${f}`),
    'tutorials/tutorials.js',
  ];
  const asked = new Set();
  for (const f of files) {
    const text = read(f);
    for (const m of text.matchAll(/\bt\('([\w.-]+)'/g)) asked.add(m[1]);
    for (const m of text.matchAll(/\bt\(\w+ \? '([\w.-]+)' : '([\w.-]+)'/g)) { asked.add(m[1]); asked.add(m[2]); }
    for (const m of text.matchAll(/data-i18n(?:-md)?(?:="|': ')([\w.-]+)/g)) asked.add(m[1]);
    for (const m of text.matchAll(/'(editor\.\w+)'/g)) asked.add(m[1]); // CodeMirror's phrases (editors.js)
    for (const m of text.matchAll(/data-i18n-attr(?:="|': ')([^"']+)/g)) {
      for (const pair of m[1].split(/\s+/)) asked.add(pair.split('=')[1]);
    }
  }
  assert.ok(asked.size > 100, `found ${asked.size} keys`);
  assert.deepEqual([...asked].filter((k) => !(k in en)), []);
});

test('the tutorial panel\'s labels and every template name are in the catalogue', async () => {
  const src = read('tutorials/tutorials.js');
  for (const [list, prefix] of [['NAMES', 'tutorial'], ['AT', 'tutorial.at'], ['FEEDBACK', 'tutorial.feedback']]) {
    const body = new RegExp(`const ${list} = \\[([^\\]]*)\\]`).exec(src)?.[1];
    assert.ok(body, list);
    for (const m of body.matchAll(/'(\w+)'/g)) assert.ok(`${prefix}.${m[1]}` in en, `${prefix}.${m[1]}`);
  }
  const { TEMPLATES, DEFAULT_TEMPLATE } = await import(join(www, 'src', 'templates.js'));
  for (const t of [...TEMPLATES, DEFAULT_TEMPLATE]) assert.ok(`template.${t.id}` in en, t.id);
});
