// Every tutorial in every language: runs tutorials/i18n/check.mjs (each overlay
// against its English file: steps, hints, check labels, starter code) for the four
// translations. No browser: `node --test tests/i18n_tutorials.test.mjs`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const check = join(dirname(fileURLToPath(import.meta.url)), '..', 'tutorials', 'i18n', 'check.mjs');

for (const lang of ['pt-BR', 'ja', 'ko', 'de']) {
  test(`the tutorials are translated into ${lang}`, () => {
    const r = spawnSync(process.execPath, [check, lang], { encoding: 'utf8' });
    assert.equal(r.status, 0, `check.mjs ${lang}:\n${r.stdout}${r.stderr}`);
  });
}
