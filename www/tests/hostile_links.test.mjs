// Hostile links are inert, and nothing typed is lost. Headless Chromium
// (Debian's /usr/bin/chromium through playwright-core; no browser is
// downloaded) opens share links carrying XSS payloads in field names, values,
// collection names, error messages, tutorial references and JSON that mimics
// the link format, and checks that no script runs, no dialog opens and no
// request leaves the origin. Then: broken links leave the editors as they
// were, and a trapped engine is replaced while the text (and its autosave)
// survives. Links are made with the real codec (the wasm export encode_link),
// or, for states the codec would refuse, by deflating raw JSON; the codec's
// own test checks a state crosses it as a plain object both ways.
// The page's steps are page.mjs's; its own setup records requests and dialogs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { serve, launch } from './harness.mjs';
import {
  www, artifacts, screenshot as shot, replaceText, editorText, savedWork, runAndWait,
} from './page.mjs';

let site;
let origin;
let context;
let browser;
let codec;
const requests = [];
const dialogs = [];
const problems = [];

// ---- setup -------------------------------------------------------------------



async function newPage() {
  const page = await context.newPage();
  page.on('dialog', async (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    await d.dismiss().catch(() => {});
  });
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  return page;
}

/** A `#v1…` fragment made by the real codec (the wasm export the page uses). */
function link(state) {
  const full = { db: '', script: '', now: 1_700_000_000_000, seed: 0, view: 'shell', ...state };
  const r = codec.encode_link(full);
  assert.ok(r.link, `the codec refused the state: ${r.error}`);
  return r.link;
}

/** A `#v1…` fragment holding any JSON text, as a forger would make it. */
function forged(json) {
  return `v1${deflateRawSync(Buffer.from(json)).toString('base64url')}`;
}

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  codec = await import(pathToFileURL(join(www, 'pkg', 'mqlplay.js')).href);
  await codec.default({ module_or_path: readFileSync(join(www, 'pkg', 'mqlplay_bg.wasm')) });
  site = await serve(www);
  origin = site.origin;
  browser = await launch(chromium, 'mqlplay-hostile-', {
    viewport: { width: 1440, height: 860 },
    colorScheme: 'light',
  });
  context = browser.context;
  context.on('request', (r) => requests.push(r.url()));
  // Whatever a payload runs marks the page; the checks below read the marks.
  await context.addInitScript(() => {
    window.__pwned = 0;
  });
});

after(async () => {
  await browser?.close();
  site?.stop();
});

// ---- the page's code ------------------------------------------------------------

test('the page has a strict Content-Security-Policy and no inline script', () => {
  const html = readFileSync(join(www, 'index.html'), 'utf8');
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1];
  assert.ok(csp, 'no CSP meta tag');
  const directives = Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
  assert.deepEqual(directives['default-src'], ["'self'"]);
  assert.deepEqual(directives['script-src'], ["'self'", "'wasm-unsafe-eval'"]);
  assert.deepEqual(directives['connect-src'], ["'self'"]);
  assert.deepEqual(directives['object-src'], ["'none'"]);
  assert.deepEqual(directives['base-uri'], ["'none'"]);
  for (const tag of html.match(/<script\b[^>]*>/g) ?? []) assert.match(tag, /\bsrc="[^":]+"/, `inline or foreign script: ${tag}`);
  assert.doesNotMatch(html, /\son[a-z]+\s*=/i, 'inline event handler attribute');
  assert.doesNotMatch(html, /(?:href|src|action)\s*=\s*["']?\s*javascript:/i);
});

test('no HTML sink and no string evaluation in the page\'s own code', () => {
  const files = [
    ...readdirSync(join(www, 'src')).filter((f) => f.endsWith('.js')).map((f) => join(www, 'src', f)),
    ...readdirSync(join(www, 'tutorials')).filter((f) => f.endsWith('.js')).map((f) => join(www, 'tutorials', f)),
  ];
  assert.ok(files.length >= 5);
  const sinks = [
    /\.innerHTML\b/, /\.outerHTML\b/, /insertAdjacentHTML/, /document\.write/, /\beval\s*\(/, /new\s+Function\b/,
    /set(?:Timeout|Interval)\s*\(\s*['"`]/, /\.srcdoc\b/, /createContextualFragment/, /DOMParser/,
    /\.(?:href|src|action)\s*=(?!=)/, /setAttribute\(\s*['"](?:href|src|on\w+|style)['"]/,
  ];
  for (const f of files) {
    const code = readFileSync(f, 'utf8').replace(/^\s*(\/\/|\*).*$/gm, ''); // comments may name the sinks
    for (const sink of sinks) assert.doesNotMatch(code, sink, `${f} uses ${sink}`);
  }
});

// ---- the codec's objects --------------------------------------------------------------

test('a state with every field crosses the codec as a plain object and comes back whole', () => {
  const state = {
    db: 'db = { t: [ { s: "é😀𝄞\u2028\\"</script>" } ] }',
    script: 'db.t.find({ s: /😀/ })\r\n// 𝄞',
    now: -1_700_000_000_123,
    seed: 2 ** 53 - 1,
    view: 'tree',
    tutorial: 'basics',
    step: 4_294_967_295,
    lang: 'ja',
    tz: 'Asia/Tokyo',
  };
  const encoded = codec.encode_link(state);
  assert.equal(encoded.error, undefined);
  assert.match(encoded.link, /^v1[\w-]+$/);
  const decoded = codec.decode_link(encoded.link);
  assert.deepEqual(Object.keys(decoded), ['state']);
  assert.equal(Object.getPrototypeOf(decoded.state), Object.prototype);
  assert.deepEqual(decoded.state, state);
  // The link's JSON is what it always was: any raw-deflate reader gets the state.
  const [, payload] = /^v1(.*)$/.exec(encoded.link);
  const text = inflateRawSync(Buffer.from(payload, 'base64url')).toString('utf8');
  assert.equal(text, JSON.stringify(state));
  // A seed of 2^53 is past what the page holds exactly: refused with the engine's reason.
  const past = codec.encode_link({ ...state, seed: 2 ** 53 });
  assert.equal(past.link, undefined);
  assert.match(past.error, /the seed 9007199254740992 is larger than 9007199254740991/);
  const opened = codec.decode_link(forged(JSON.stringify({ ...state, seed: 2 ** 53 })));
  assert.deepEqual(opened.params, { seed: '9007199254740992', max: '9007199254740991' });
  assert.equal(opened.reason, 'seedTooLarge');
  assert.equal(opened.state, undefined);
  for (const bad of [{ ...state, seed: '1' }, { ...state, now: 1.5 }, { ...state, step: -1 }, 'state', null]) {
    assert.match(codec.encode_link(bad).error, /^cannot encode the state: /, JSON.stringify(bad));
  }
});

// ---- hostile links ------------------------------------------------------------------

/** Runs script and announces itself if it ever executes. */
const JS = 'window.__pwned++;alert(document.domain);fetch(\'http://evil.invalid/x\')';
const PAYLOADS = [
  `<script>${JS}</script>`,
  `<img src=x onerror="${JS}">`,
  `"><svg onload="${JS}">`,
  `'><iframe srcdoc="<script>parent.${JS}</script>">`,
  `<a href="javascript:${JS}">x</a>`,
  '<img src="http://evil.invalid/pixel.png">',
  '<link rel=stylesheet href="http://evil.invalid/s.css"><style>@import url(http://evil.invalid/t.css)</style>',
  `</textarea></pre></code><script>${JS}</script>`,
  `\${${JS}}`,
  '{{constructor.constructor(\'alert(1)\')()}}',
  '\u202e<b>rtl</b>\u2028\u2029',
];

/** A JavaScript/mongosh string literal. */
const q = (s) => JSON.stringify(s);

/** Check a page that opened a hostile link: nothing ran, the payloads are text. */
async function assertInert(page, name) {
  assert.equal(await page.evaluate(() => window.__pwned), 0, `${name}: a payload ran`);
  assert.deepEqual(dialogs, [], `${name}: a dialog opened`);
  const injected = await page.evaluate(() => {
    const bad = [...document.querySelectorAll('img[src], img[srcset], iframe, frame, object, embed, svg script, link[href*="evil"], style')]
      .filter((e) => e.tagName !== 'STYLE' || e.textContent.includes('evil'))
      .map((e) => e.outerHTML.slice(0, 80));
    const handlers = [...document.querySelectorAll('*')].flatMap((e) => [...e.attributes]
      .filter((a) => /^on/i.test(a.name) || /javascript:/i.test(a.value))
      .map((a) => `${e.tagName} ${a.name}=${a.value.slice(0, 40)}`));
    const scripts = [...document.querySelectorAll('script')].filter((s) => !s.src || !s.src.startsWith(location.origin)).length;
    return { bad, handlers, scripts };
  });
  assert.deepEqual(injected, { bad: [], handlers: [], scripts: 0 }, `${name}: markup from data reached the DOM`);
}

async function openHostile(name, fragment, { expectText = [], views = true } = {}) {
  const page = await newPage();
  await page.goto(`${origin}/#${fragment}`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForTimeout(300);
  if (views) {
    for (const view of ['tree', 'ejson', 'shell']) {
      await page.click(`[data-view="${view}"]`);
      await page.waitForTimeout(50);
    }
  }
  const all = await page.evaluate(() => document.body.innerText);
  for (const t of expectText) assert.ok(all.includes(t), `${name}: ${JSON.stringify(t)} is not shown as text`);
  await shot(page, `hostile-${name}`);
  await assertInert(page, name);
  return page;
}

test('payloads in field names, values and collection names are shown as text', async () => {
  const fields = PAYLOADS.map((p, i) => `${q(p)}: ${q(p)}, ${q(`k${i}`)}: [${q(p)}, { ${q(p)}: ${q(p)} }]`).join(', ');
  const db = `db = {\n  c: [ { _id: 1, ${fields} } ],\n  ${q(PAYLOADS[1])}: [ { _id: ${q(PAYLOADS[0])}, code: Code(${q(PAYLOADS[0])}), re: /<script>alert\\(1\\)<\\/script>/i, sym: ${q(PAYLOADS[2])} } ]\n}`;
  const script = [
    'db.c.find()',
    'db.getCollectionNames()',
    `db.getCollection(${q(PAYLOADS[1])}).find()`,
    `db.c.updateOne({ _id: 1 }, { $set: { ${q(PAYLOADS[3])}: ${q(PAYLOADS[4])} } })`,
    `db.getCollection(${q(PAYLOADS[1])}).insertOne({ _id: 2, v: ${q(PAYLOADS[7])} })`,
    `db.c.aggregate([{ $project: { _id: 0, kv: { $objectToArray: '$$ROOT' } } }, { $unwind: '$kv' }, { $replaceWith: { k: '$kv.k', html: { $concat: ['<b>', '$kv.k', '</b>'] } } }])`,
  ].join('\n');
  const page = await openHostile('values', link({ db, script }), { expectText: ['<img src=x onerror=', '<script>window.__pwned++'] });
  await page.close();
});

test('payloads in error messages and error excerpts are shown as text', async () => {
  for (const [i, script] of [
    `db.c.find({ ${q(`$${PAYLOADS[1]}`)}: 1 })`,
    `db.c.find({ a: 1 }) ${PAYLOADS[0]}`,
    `db.c.aggregate([{ ${q(`$${PAYLOADS[2]}`)}: {} }])`,
    `db.c.insertOne({ _id: ${q(PAYLOADS[1])} })\ndb.c.insertOne({ _id: ${q(PAYLOADS[1])} })`,
    `db.c.find({ $where: ${q(PAYLOADS[0])} })`,
  ].entries()) {
    const page = await openHostile(`error-${i}`, link({ db: `db = { c: [ { ${q(PAYLOADS[5])}: 1 } ] }`, script }), { views: false });
    assert.ok(await page.isVisible('#result .error, .cm-error-note'), `error ${i} is shown`);
    await page.close();
  }
  // A database (configuration) error points into the Database pane.
  const page = await openHostile('error-db', link({ db: `db = { c: [ { a: 1 } ${PAYLOADS[1]} ] }`, script: 'db.c.find()' }), { views: false });
  await page.close();
});

test('hostile tutorial references open nothing and fetch nothing', async () => {
  for (const [i, tutorial] of [PAYLOADS[1], '../../../etc/passwd', 'http://evil.invalid/t.json', '//evil.invalid/t', '__proto__', 'constructor'].entries()) {
    const page = await openHostile(`tutorial-${i}`, link({ db: '[]', script: 'db.collection.find()', tutorial, step: 4_294_967_295 }), { views: false });
    await page.close();
  }
});

test('forged JSON in the link format is refused or stays data', async () => {
  const cases = [
    // A view the page does not know, unknown fields, prototype keys: refused or ignored.
    forged(JSON.stringify({ db: '[]', script: 'db.collection.find()', now: 0, seed: 0, view: PAYLOADS[1] })),
    forged(`{"db":"[]","script":"db.collection.find()","now":0,"seed":0,"view":"shell","__proto__":{"polluted":1},"html":${q(PAYLOADS[0])}}`),
    forged(JSON.stringify({ db: PAYLOADS[0], script: PAYLOADS[1], now: 'x', seed: -1 })),
    forged(`<html><body onload="${JS}">`),
    forged(''),
    // Texts that look like links or state inside a valid state.
    link({ db: JSON.stringify({ db: PAYLOADS[0], script: `#${forged('{}')}`, now: 0 }), script: `// ${origin}/#${link({ script: PAYLOADS[1] })}\ndb.c.find()` }),
    // Not links at all, or other versions, with markup.
    `v1${PAYLOADS[1]}`,
    `v9${PAYLOADS[2]}`,
    `v1${encodeURIComponent(PAYLOADS[0])}`,
  ];
  for (const [i, fragment] of cases.entries()) {
    const page = await openHostile(`forged-${i}`, fragment, { views: false });
    assert.equal(await page.evaluate(() => ({}).polluted), undefined, 'prototype pollution');
    await page.close();
  }
});

test('deeply nested scripts and databases give results or errors, never a crashed engine', async () => {
  const deep = (n, open, close, leaf) => `${open.repeat(n)}${leaf}${close.repeat(n)}`;
  const scripts = [
    `db.c.insertOne(${deep(180, '{a: ', '}', '1')})\ndb.c.find()`,
    `db.c.insertOne(${deep(181, '{a: ', '}', '1')})`,
    `db.c.find(${deep(95, '{$and: [', ']}', '{a: 1}')})`,
    `db.c.aggregate([{$project: {x: ${deep(190, '{$add: [1, ', ']}', '1')}}}])`,
    `db.c.find({a: ${deep(190, '[', ']', '1')}})`,
    `db.aggregate([{$documents: [{}]}, {$project: {a: {$reduce: {input: {$range: [0, 100000]}, initialValue: {}, in: {a: '$$value'}}}}}])`,
  ];
  for (const [i, script] of scripts.entries()) {
    const page = await newPage();
    await page.goto(`${origin}/#${link({ db: `db = { c: [ { a: ${deep(150, '[', ']', '1')} } ] }`, script })}`);
    await page.waitForSelector('body[data-ready="true"]');
    const result = await page.textContent('#result');
    assert.doesNotMatch(result, /engine failed/, `script ${i} crashed the engine: ${result.slice(0, 300)}`);
    await page.close();
  }
});

// ---- nothing lost -------------------------------------------------------------------

const MY_DB = 'db = { mine: [ { _id: 1, note: "typed by hand é😀" } ] }';
const MY_SCRIPT = 'db.mine.find({ note: /hand/ })';

async function pageWithMyText() {
  const page = await newPage();
  await page.goto(`${origin}/`);
  await page.waitForSelector('body[data-ready="true"]');
  await replaceText(page, 'db-editor', MY_DB);
  await replaceText(page, 'query-editor', MY_SCRIPT);
  await runAndWait(page);
  assert.match(await page.textContent('#result'), /typed by hand/);
  return page;
}

async function assertMyText(page, what) {
  assert.equal(await editorText(page, 'db-editor'), MY_DB, `${what}: the Database pane changed`);
  assert.equal(await editorText(page, 'query-editor'), MY_SCRIPT, `${what}: the Query pane changed`);
}

test('a link cut short or tampered with says so and leaves the editors as they were', async () => {
  const page = await pageWithMyText();
  const good = link({ db: '[{_id: 1}]', script: 'db.collection.find()' });
  const tampered = `${good.slice(0, 20)}${good[20] === 'A' ? 'B' : 'A'}${good.slice(21)}`;
  for (const [what, fragment, message] of [
    ['cut short', good.slice(0, Math.floor(good.length * 0.6)), /cut short|damaged|not valid/],
    ['tampered', tampered, /damaged|not valid|cut short/],
    ['mangled by a chat app', `${good.slice(0, 30)}…`, /not part of a link/],
  ]) {
    await page.evaluate((f) => { location.hash = f; }, fragment);
    await page.waitForSelector('#banner:not([hidden])');
    const banner = await page.textContent('#banner');
    assert.match(banner, /share link cannot be opened/, what);
    assert.match(banner, message, `${what}: ${banner}`);
    assert.match(banner, /left as they were/, what);
    await assertMyText(page, what);
    await page.click('#banner-close');
  }
  await shot(page, 'hostile-broken-link');
  // Reloading on the broken link keeps the autosaved text too.
  await page.goto(`${origin}/#${good.slice(0, 25)}`);
  await page.waitForSelector('body[data-ready="true"]');
  assert.match(await page.textContent('#banner'), /share link cannot be opened/);
  await assertMyText(page, 'reload on a broken link');
  await assertInert(page, 'broken links');
  await page.close();
});

/**
 * A worker that traps for real: the page's worker bundle plus a shim that
 * runs a wasm `unreachable` when a script contains __TRAP__ (the engine
 * itself has no known trap to provoke).
 */
const TRAP_SHIM = `
;{
  const original = self.onmessage;
  const trap = new Uint8Array([0,97,115,109,1,0,0,0,1,4,1,96,0,0,3,2,1,0,7,5,1,1,116,0,0,10,5,1,3,0,0,11]);
  self.onmessage = (event) => {
    if (event.data && event.data.type === 'run' && String(event.data.script).includes('__TRAP__')) {
      new WebAssembly.Instance(new WebAssembly.Module(trap)).exports.t();
    }
    return original(event);
  };
}`;

test('a trapped engine is replaced by a fresh one and every editor keeps its text, also after a reload', async () => {
  const page = await newPage();
  await page.route((url) => url.pathname.endsWith('/dist/worker.js'), async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, body: `${await response.text()}${TRAP_SHIM}` });
  });
  await page.goto(`${origin}/`);
  await page.waitForSelector('body[data-ready="true"]');
  await replaceText(page, 'db-editor', MY_DB);
  const trapping = `${MY_SCRIPT} // __TRAP__`;
  await replaceText(page, 'query-editor', trapping);
  await page.click('#run');
  await page.waitForFunction(() => /engine failed/.test(document.querySelector('#result')?.textContent ?? ''), null, { timeout: 20_000 });
  const message = await page.textContent('#result');
  assert.match(message, /unreachable/, message);
  assert.match(message, /restarted; your text is kept/, message);
  assert.equal(await editorText(page, 'db-editor'), MY_DB);
  assert.equal(await editorText(page, 'query-editor'), trapping);
  await shot(page, 'hostile-trapped-engine');
  // The fresh engine runs the next script.
  await replaceText(page, 'query-editor', MY_SCRIPT);
  await runAndWait(page);
  assert.match(await page.textContent('#result'), /typed by hand/);
  // Autosave kept everything: a reload shows the same text.
  assert.equal((await savedWork(page)).db, MY_DB);
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  await assertMyText(page, 'reload after a trap');
  await page.close();
});

test('no request left the page\'s origin and nothing was logged', () => {
  const foreign = requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:') && !u.startsWith('blob:'));
  assert.deepEqual(foreign, []);
  assert.deepEqual(dialogs, []);
  // CSP reports of blocked payloads would be welcome, but nothing may even try.
  assert.deepEqual(problems.filter((p) => !/Failed to load resource/.test(p)), []);
});
