// The templates' script comments in each language (src/templates.js withComments,
// keys `template.<id>.<db|script>.<n>` in i18n/<lang>.json): English's entries are the
// templates' own comments, in order; each translation keeps the code it names
// ($facet, find(), totalDocsExamined, COLLSCAN, _id) and changes nothing but comments.
// No browser: `node --test tests/template_comments.test.mjs`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEMPLATES, withComments, commentsOf } from '../src/templates.js';

const www = join(dirname(fileURLToPath(import.meta.url)), '..');
const catalogue = (lang) => JSON.parse(readFileSync(join(www, 'i18n', `${lang}.json`), 'utf8'));
const LANGS = ['en', 'pt-BR', 'ja', 'ko', 'de'];
const PANES = ['db', 'script'];
const key = (tpl, pane, n) => `template.${tpl.id}.${pane}.${n}`;

/** Operators, calls, names with `_` or camelCase, plan stages in capitals. */
const code = (s) => [...new Set(s.match(/\$+\w+|\w+\(\)|\w*_\w+|\b[a-z]+[A-Z]\w*|\b[A-Z]{4,}\b/g) ?? [])].sort();
/** The text with every comment emptied: what runs. */
const uncommented = (text) => withComments(text, (n, words) => words.split('\n').map(() => '').join('\n'));

test('English holds every template comment, in order, and no other', () => {
  const en = catalogue('en');
  const expected = new Set();
  for (const tpl of TEMPLATES) {
    for (const pane of PANES) {
      commentsOf(tpl[pane]).forEach((words, i) => {
        expected.add(key(tpl, pane, i + 1));
        assert.equal(en[key(tpl, pane, i + 1)], words, key(tpl, pane, i + 1));
      });
    }
  }
  assert.ok(expected.size >= 20, `${expected.size} comments`);
  const listed = Object.keys(en).filter((k) => /^template\.[\w-]+\.(db|script)\.\d+$/.test(k));
  assert.deepEqual(listed.filter((k) => !expected.has(k)), []);
});

for (const lang of LANGS.slice(1)) {
  test(`${lang}: each template comment keeps its code and only comments change`, () => {
    const tr = catalogue(lang);
    for (const tpl of TEMPLATES) {
      for (const pane of PANES) {
        const english = commentsOf(tpl[pane]);
        english.forEach((words, i) => {
          const k = key(tpl, pane, i + 1);
          assert.deepEqual(code(tr[k]), code(words), `${lang} ${k}`);
          assert.notEqual(tr[k], words, `${lang} ${k} is still English`);
        });
        const translated = withComments(tpl[pane], (n) => tr[key(tpl, pane, n)]);
        assert.equal(uncommented(translated), uncommented(tpl[pane]), `${lang} ${tpl.id} ${pane}`);
        assert.deepEqual(commentsOf(translated), english.map((_, i) => tr[key(tpl, pane, i + 1)]));
      }
    }
  });
}

test('the check sees code words, and a comment-only change keeps the code', () => {
  assert.deepEqual(code('find() reads (COLLSCAN) with $facet, _id and totalDocsExamined'),
    ['$facet', 'COLLSCAN', '_id', 'find()', 'totalDocsExamined']);
  const text = 'db.x.find() // one\n// two\n// three\ndb.y.find()';
  assert.deepEqual(commentsOf(text), ['one', 'two\nthree']);
  assert.equal(withComments(text, (n) => (n === 2 ? 'zwei' : null)), 'db.x.find() // one\n// zwei\ndb.y.find()');
});
