// Browser tests of the aggregation workbench and the result views (issue 26):
// plain messages, nothing stale, field-level diffs, stage by stage ($facet,
// $lookup sub-pipelines, pipeline updates), run at the cursor, exact copy and
// download, links over autosaved work and links opened beside it. The setup is
// page.mjs's; screenshots go to tests/artifacts/ (workbench-*.png).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';
import {
  pageSession, newPage, screenshot, runs, waitRuns, replaceText, editorText, savedWork, runAndWait, runWith,
  clipboardAfter, downloaded,
} from './page.mjs';

const session = pageSession('mqlplay-workbench-', { viewport: { width: 1366, height: 768 } }, { clipboard: true });
const shot = (page, name) => screenshot(page, `workbench-${name}`);
const stageRuns = (page) => page.evaluate(() => Number(document.body.dataset.stageRuns || 0));
async function waitStageRuns(page, n) {
  await page.waitForFunction((k) => Number(document.body.dataset.stageRuns || 0) >= k, n, { timeout: 20_000 });
}

/** A fresh page with `db` and `script` typed in and run. */
async function pageWith(db, script) {
  const page = await newPage(session);
  await page.goto(`${session.origin}/`);
  await page.waitForSelector('body[data-ready="true"]');
  await runWith(page, db, script);
  return page;
}

const link = (state) => `v1${deflateRawSync(Buffer.from(JSON.stringify({ now: 1704067200000, seed: 0, view: 'shell', ...state }))).toString('base64url')}`;

const TRADES = `db = { trades: [
  { _id: 1, ticker: "MDB", qty: 120, price: 251.3, tags: ["a", "b"] },
  { _id: 2, ticker: "AAPL", qty: 40, price: 179.6 },
  { _id: 3, ticker: "MDB", qty: 60, price: 255.1 },
  { _id: 4, ticker: "MSFT", qty: 15, price: 410.2 }
] }`;

test('messages: unsupported names, the Database pane, a count\'s documents, a broken link', async () => {
  const page = await pageWith(TRADES, 'db.trades.countDocuments({ ticker: "MDB" })\ndb.trades.renameCollection("deals")');
  const work = await page.textContent('#result .result .work-line');
  assert.match(work, /2 documents counted/, work);
  const error = await page.textContent('#result .error');
  assert.match(error, /\(CommandNotSupported\) the collection method renameCollection\(\) is not supported/, error);
  for (const [script, name] of [['print("hi")', 'print'], ['sleep(10)', 'sleep']]) {
    await replaceText(page, 'query-editor', script);
    await runAndWait(page);
    assert.match(await page.textContent('#result .error'), new RegExp(`CommandNotSupported.*${name}\\(\\)`));
  }
  // A duplicate _id in the Database pane says where it comes from.
  await replaceText(page, 'db-editor', 'db = { t: [ { _id: 1 }, { _id: 1 } ] }');
  await runAndWait(page);
  assert.match(await page.textContent('#result .error'), /^.*Database pane.*DuplicateKey/s);
  await shot(page, 'database-pane-error');
  // A link mangled in transit: plain words, no decoder internals.
  const good = link({ db: '[]', script: 'db.collection.find()' });
  await page.evaluate((f) => { location.hash = f; }, `${good.slice(0, 30)}…`);
  await page.waitForSelector('#banner:not([hidden])');
  const banner = await page.textContent('#banner');
  assert.match(banner, /This share link cannot be opened: some of its characters are not part of a link/, banner);
  assert.doesNotMatch(banner, /offset|symbol|base64/i, banner);
  await page.close();
});

test('nothing stale: an edit dims the result; a late error comes into view; its statement is marked', async () => {
  const long = Array.from({ length: 60 }, (_, i) => `{ _id: ${i}, note: "row ${i}" }`).join(', ');
  const page = await pageWith(`db = { rows: [ ${long} ] }`, 'db.rows.find()\ndb.rows.aggregate([{ $grop: { _id: null } }])');
  const box = await page.$('#result .error');
  assert.ok(box, 'the runtime error is shown');
  assert.ok(await box.isVisible());
  const inView = await page.evaluate(() => {
    const pane = document.getElementById('result').getBoundingClientRect();
    const err = document.querySelector('#result .error').getBoundingClientRect();
    return err.top >= pane.top - 1 && err.top < pane.bottom;
  });
  assert.ok(inView, 'the error scrolled into the result pane');
  assert.match(await page.textContent('#result .error'), /Statement 2 failed/);
  assert.match(await page.textContent('#query-editor .cm-stmt-error'), /\$grop/);
  assert.equal(await page.isVisible('#stale-note'), false);
  await shot(page, 'runtime-error');
  // Editing either pane marks the result as out of date.
  await page.click('#query-editor .cm-content');
  await page.keyboard.press('ControlOrMeta+End');
  await page.keyboard.type(' ');
  await page.waitForSelector('#stale-note:not([hidden])');
  assert.match(await page.textContent('#stale-note'), /Edited since this run/);
  assert.equal(await page.getAttribute('#result', 'class'), 'result-body stale');
  await shot(page, 'stale');
  await page.keyboard.press('Backspace'); // back to the text that ran
  await page.waitForSelector('#stale-note', { state: 'hidden' });
  await page.click('#db-editor .cm-content');
  await page.keyboard.press('ControlOrMeta+End');
  await page.keyboard.type('\n');
  await page.waitForSelector('#stale-note:not([hidden])');
  await runAndWait(page);
  assert.equal(await page.isVisible('#stale-note'), false, 'a new run is current');
  await page.close();
});

test('field-level diff: before → after, array elements by position, removed documents in shell format', async () => {
  const page = await pageWith(TRADES, [
    'db.trades.updateOne({ _id: 1 }, { $inc: { qty: 5 }, $set: { "tags.1": "z", desk: "eq" }, $unset: { price: "" } })',
    'db.trades.deleteOne({ _id: 2 })',
    'db.trades.insertOne({ _id: 9, ticker: "ORCL", qty: 1 })',
  ].join('\n'));
  const lines = await page.$$eval('#result .doc-changed .field-changes li', (els) => els.map((e) => e.textContent));
  assert.deepEqual(lines, ['qty: 120 → 125', 'price: 251.3 removed', 'tags.1: \'b\' → \'z\'', 'desk: \'eq\' added']);
  const removed = await page.textContent('#result .doc-removed pre');
  assert.match(removed, /_id: 2,/);
  assert.doesNotMatch(removed, /"_id"/, 'shell format, like the others');
  assert.match(await page.textContent('#result .doc-inserted pre'), /ticker: 'ORCL'/);
  await shot(page, 'field-diff');
  await page.click('[data-view="ejson"]');
  assert.match(await page.textContent('#result .doc-changed .field-changes'), /tags\.1: "b" → "z"/);
  await page.close();
});

test('stage by stage: counts per stage, a stage switched off, an error on its card, facets, several pipelines', async () => {
  const page = await pageWith(TRADES, [
    'db.trades.aggregate([',
    '  { $match: { qty: { $gte: 40 } } },',
    '  { $group: { _id: "$ticker", shares: { $sum: "$qty" } } },',
    '  { $sort: { shares: -1 } }',
    '])',
    'db.trades.aggregate([{ $facet: { mdb: [{ $match: { ticker: "MDB" } }, { $count: "n" }], all: [{ $count: "n" }] } }])',
  ].join('\n'));
  const script = await editorText(page, 'query-editor');
  let n = await stageRuns(page);
  await page.click('#result .result:nth-of-type(1) .result-tool:has-text("Stages")');
  await waitStageRuns(page, n + 1);
  const counts = () => page.$$eval('#result .stage-list:not(.stage-facet) > .stage-card > .stage-top .stage-count', (els) => els.map((e) => e.textContent));
  assert.deepEqual(await counts(), ['3 documents out', '2 documents out', '2 documents out']);
  assert.match(await page.textContent('#result .stage-card:nth-of-type(2) .stage-docs'), /_id: 'MDB', shares: 180/);
  await shot(page, 'stages');
  // Switch $match off: the effect shows at once, the text stays as it was.
  n = await stageRuns(page);
  await page.click('#result .stage-card:nth-of-type(1) .stage-switch');
  await waitStageRuns(page, n + 1);
  assert.deepEqual(await counts(), ['off: skipped', '3 documents out', '3 documents out']);
  assert.equal(await editorText(page, 'query-editor'), script);
  await shot(page, 'stage-off');
  // The second pipeline, from the selector: one card per facet stage.
  n = await stageRuns(page);
  await page.selectOption('#stages-select', '1');
  await waitStageRuns(page, n + 1);
  const facets = await page.$$eval('#result .facet-name', (els) => els.map((e) => e.textContent));
  assert.deepEqual(facets, ['facet mdb', 'facet all']);
  const facetCounts = await page.$$eval('#result .stage-facet .stage-count', (els) => els.map((e) => e.textContent));
  assert.deepEqual(facetCounts, ['2 documents out', '1 document out', '1 document out']);
  // A failing stage shows its error on its card; the Stages view follows each run.
  n = await stageRuns(page);
  await replaceText(page, 'query-editor', 'db.trades.aggregate([{ $match: {} }, { $grop: { _id: 1 } }, { $limit: 1 }])');
  await page.keyboard.press('ControlOrMeta+Enter');
  await waitStageRuns(page, n + 1);
  assert.match(await page.textContent('#result .stage-card:nth-of-type(2) .error'), /Unrecognized pipeline stage name: '\$grop'/);
  assert.deepEqual(await counts(), ['4 documents out', '', 'not run (an earlier stage failed)']);
  await shot(page, 'stage-error');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator('#result-pane').scrollIntoViewIfNeeded();
  await shot(page, 'stages-phone');
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.click('.stages-back');
  await page.waitForSelector('#result > .error'); // the run's own result: the same error
  await page.close();
});

test('run the statement at the cursor: the script up to it, its result in view', async () => {
  const page = await pageWith(TRADES, 'db.trades.countDocuments()\ndb.trades.updateOne({ _id: 1 }, { $set: { qty: 1 } })\ndb.trades.find({ _id: 1 })');
  // The cursor on line 2.
  await page.click('#query-editor .cm-line:nth-child(2)');
  const n = await runs(page);
  await page.keyboard.press('ControlOrMeta+Shift+Enter');
  await waitRuns(page, n + 1);
  const titles = await page.$$eval('#result .result .result-title code', (els) => els.map((e) => e.textContent));
  assert.equal(titles.length, 2, titles.join('\n'));
  assert.match(await page.textContent('#result .result-at-cursor'), /modifiedCount: 1/);
  assert.match(await page.textContent('#status'), /Ran up to statement 2 of 3/);
  assert.ok(await page.$('#query-editor .cm-stmt-ran'));
  await shot(page, 'run-at-cursor');
  // The ▶ beside line 3 runs everything.
  const markers = await page.$$('#query-editor .cm-run-here');
  assert.equal(markers.length, 3);
  await markers[2].click();
  await waitRuns(page, n + 2);
  assert.equal((await page.$$('#result .result')).length, 3);
  assert.match(await page.textContent('#result .result-at-cursor'), /qty: 1\b/);
  await page.close();
});

test('stage by stage: a $lookup sub-pipeline per input document, a pipeline update over its matched documents', async () => {
  const page = await pageWith(`${TRADES.slice(0, -2)},
  tickers: [ { _id: "MDB", name: "MongoDB" }, { _id: "AAPL", name: "Apple" }, { _id: "MSFT", name: "Microsoft" } ] }`, [
    'db.tickers.aggregate([',
    '  { $lookup: { from: "trades", localField: "_id", foreignField: "ticker", as: "big",',
    '      pipeline: [{ $match: { qty: { $gte: 50 } } }, { $project: { _id: 0, qty: 1 } }] } }',
    '])',
    'db.trades.updateMany({ ticker: "MDB" }, [',
    '  { $set: { value: { $multiply: ["$qty", "$price"] } } },',
    '  { $unset: "tags" }',
    '])',
  ].join('\n'));
  let n = await stageRuns(page);
  await page.click('#result .result:nth-of-type(1) .result-tool:has-text("Stages")');
  await waitStageRuns(page, n + 1);
  const lookup = '#result .stage-list:not(.stage-sub) > .stage-card:nth-of-type(1)';
  assert.match(await page.textContent(`${lookup} .lookup-title`), /Sub-pipeline per input document \(the first 3\)/);
  const inputs = await page.$$eval(`${lookup} .lookup-input > summary`, (els) => els.map((e) => e.textContent));
  assert.deepEqual(inputs, ["input 1: { _id: 'MDB', name: 'MongoDB' }", "input 2: { _id: 'AAPL', name: 'Apple' }", "input 3: { _id: 'MSFT', name: 'Microsoft' }"]);
  // MDB: trades 1 and 3 join, both have qty ≥ 50; the first input is open.
  const sub = `${lookup} .lookup-input:nth-of-type(1) .stage-sub .stage-count`;
  assert.deepEqual(await page.$$eval(sub, (els) => els.map((e) => e.textContent)), ['2 documents out', '2 documents out']);
  assert.match(await page.textContent(`${lookup} .lookup-input:nth-of-type(1) .stage-sub .stage-card:nth-of-type(2) .stage-docs`), /\{ qty: 120 \}/);
  await page.click(`${lookup} .lookup-input:nth-of-type(2) > summary`);
  const aapl = await page.$$eval(`${lookup} .lookup-input:nth-of-type(2) .stage-sub .stage-count`, (els) => els.map((e) => e.textContent));
  assert.deepEqual(aapl, ['0 documents out', '0 documents out'], 'AAPL\'s one trade has qty 40');
  await shot(page, 'stages-lookup');
  // The pipeline update: each stage over the two MDB trades, from the selector.
  n = await stageRuns(page);
  await page.selectOption('#stages-select', '1');
  await waitStageRuns(page, n + 1);
  const counts = () => page.$$eval('#result .stage-list > .stage-card > .stage-top .stage-count', (els) => els.map((e) => e.textContent));
  assert.deepEqual(await counts(), ['2 documents out', '2 documents out']);
  assert.match(await page.textContent('#result .stage-card:nth-of-type(1) .stage-docs'), /value: 30156/);
  assert.doesNotMatch(await page.textContent('#result .stage-card:nth-of-type(2) .stage-docs'), /tags/);
  // $unset off: the update runs without it, so the tags stay.
  n = await stageRuns(page);
  await page.click('#result .stage-card:nth-of-type(2) .stage-switch');
  await waitStageRuns(page, n + 1);
  assert.deepEqual(await counts(), ['2 documents out', 'off: skipped']);
  await shot(page, 'stages-update');
  await page.setViewportSize({ width: 390, height: 844 });
  n = await stageRuns(page);
  await page.selectOption('#stages-select', '0');
  await waitStageRuns(page, n + 1);
  await page.locator(`${lookup} .lookup-title`).scrollIntoViewIfNeeded();
  await shot(page, 'stages-lookup-phone');
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.close();
});

const TYPED = `db = { trades: [
  { _id: 1, n: NumberLong("9007199254740993"), d: NumberDecimal("0.10"), x: 2.5,
    at: ISODate("2024-01-02T03:04:05.678Z"), b: BinData(4, "AAECAw==") }
], other: [ { _id: "o", when: ISODate("1969-12-31T23:59:59Z") } ] }`;

test('copy and download exactly: canonical Extended JSON or shell form, every collection', async () => {
  const page = await pageWith(TYPED, 'db.trades.find()\ndb.trades.insertOne({ _id: 7, q: NumberInt(3) })');
  const first = '#result .result:nth-of-type(1)';
  assert.equal(await clipboardAfter(page, `${first} .result-tool:has-text("Copy")`), await page.textContent(`${first} pre.shell`));
  // EJSON: canonical, each type kept (relaxed would give 9007199254740992 and 2.5 as a plain number).
  const ejson = JSON.parse(await clipboardAfter(page, `${first} .result-tool:has-text("Copy EJSON")`));
  assert.deepEqual(ejson[0], {
    _id: { $numberInt: '1' },
    n: { $numberLong: '9007199254740993' },
    d: { $numberDecimal: '0.10' },
    x: { $numberDouble: '2.5' },
    at: { $date: { $numberLong: '1704164645678' } },
    b: { $binary: { base64: 'AAECAw==', subType: '04' } },
  });
  const result = await downloaded(page, `${first} .result-tool:has-text("Download")`);
  assert.equal(result.name, 'result-1.json');
  assert.equal(result.text, `[\n  ${JSON.stringify(ejson[0])}\n]\n`);
  // The changed collection from its own button; the unchanged one from the list of all.
  const trades = await downloaded(page, '#result .collection summary .result-tool');
  assert.equal(trades.name, 'trades.json');
  assert.deepEqual(JSON.parse(trades.text)[1], { _id: { $numberInt: '7' }, q: { $numberInt: '3' } });
  const names = await page.$$eval('#result .all-collection .coll-name', (els) => els.map((e) => e.textContent));
  assert.deepEqual(names, ['trades', 'other']);
  const other = await downloaded(page, '#result .all-collection[data-collection="other"] .result-tool:has-text("Download")');
  assert.equal(other.name, 'other.json');
  assert.equal(other.text, '[\n  {"_id":"o","when":{"$date":{"$numberLong":"-1000"}}}\n]\n');
  const shell = await clipboardAfter(page, '#result .all-collection[data-collection="trades"] .result-tool:has-text("Copy")');
  assert.match(shell, /n: Long\('9007199254740993'\)/);
  assert.match(shell, /d: Decimal128\('0\.10'\)/);
  assert.match(shell, /b: Binary\.createFromBase64\('AAECAw==', 4\)/);
  await page.locator('#result .all-collections').scrollIntoViewIfNeeded();
  await shot(page, 'copy-download');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator('#result .all-collections').scrollIntoViewIfNeeded();
  await shot(page, 'copy-download-phone');
  await page.setViewportSize({ width: 1366, height: 768 });
  // The shell form reads back to the same documents: run it as a Database text.
  await replaceText(page, 'db-editor', `db = { back: ${shell} }`);
  await replaceText(page, 'query-editor', 'db.back.find()');
  await runAndWait(page);
  const back = await downloaded(page, '#result .all-collection[data-collection="back"] .result-tool:has-text("Download")');
  assert.equal(back.text, trades.text);
  await page.close();
});

test('a link over typed work asks first; the address bar keeps the link until an edit', async () => {
  const page = await pageWith('db = { mine: [ { _id: 1 } ] }', 'db.mine.find()');
  const url = `${session.origin}/#${link({ db: 'db = { theirs: [ { _id: 2 } ] }', script: 'db.theirs.find()' })}`;
  await page.evaluate((u) => { location.href = u; }, url);
  await page.waitForSelector('#link-dialog[open]');
  await shot(page, 'link-prompt');
  await page.click('#link-dialog [data-choice="keep"]');
  await page.waitForFunction(() => /was kept/.test(document.getElementById('status').textContent));
  assert.equal(await editorText(page, 'query-editor'), 'db.mine.find()');
  assert.equal(new URL(page.url()).hash, '', 'the link not opened leaves the address bar');
  // Again, and replace.
  const n = await runs(page);
  await page.evaluate((u) => { location.href = u; }, url);
  await page.waitForSelector('#link-dialog[open]');
  await page.click('#link-dialog [data-choice="replace"]');
  await waitRuns(page, n + 1);
  assert.equal(await editorText(page, 'query-editor'), 'db.theirs.find()');
  assert.equal(page.url(), url, 'the address bar keeps the link');
  assert.equal(await page.$('#copy-note'), null, 'replacing works on the saved work itself');
  // A reload on the same link opens it without asking (nothing typed since).
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.isVisible('#link-dialog'), false);
  // The first edit takes the link out of the address bar.
  await page.click('#query-editor .cm-content');
  await page.keyboard.press('ControlOrMeta+End');
  await page.keyboard.type(' ');
  await page.waitForFunction(() => location.hash === '');
  await page.close();
});

test('open beside: a link in another tab works on its own copy; neither tab overwrites the other', async () => {
  const mine = await pageWith('db = { mine: [ { _id: 1 } ] }', 'db.mine.find()');
  assert.equal((await savedWork(mine)).script, 'db.mine.find()');
  // The link opens in a second tab, over the typed work saved in this browser.
  const url = `${session.origin}/#${link({ db: 'db = { theirs: [ { _id: 2 } ] }', script: 'db.theirs.find()' })}`;
  const theirs = await newPage(session);
  await theirs.goto(url);
  await theirs.waitForSelector('#link-dialog[open]');
  assert.deepEqual(await theirs.$$eval('#link-dialog [data-choice]', (els) => els.map((e) => e.textContent)),
    ['Open beside my work', 'Replace my work', 'Keep my work']);
  await theirs.click('#link-dialog [data-choice="beside"]');
  await theirs.waitForSelector('body[data-ready="true"]');
  assert.equal(await editorText(theirs, 'query-editor'), 'db.theirs.find()');
  assert.match(await theirs.textContent('#copy-note'), /This tab works on its own copy; your saved work is unchanged/);
  await shot(theirs, 'link-beside');
  // Both tabs type; each keeps its own text, in its own slot.
  await theirs.click('#query-editor .cm-content');
  await theirs.keyboard.press('ControlOrMeta+End');
  await theirs.keyboard.insertText('.limit(1)');
  await mine.click('#query-editor .cm-content');
  await mine.keyboard.press('ControlOrMeta+End');
  await mine.keyboard.insertText('.limit(2)');
  assert.equal((await savedWork(mine)).script, 'db.mine.find().limit(2)');
  assert.equal(await editorText(mine, 'query-editor'), 'db.mine.find().limit(2)');
  assert.equal(await editorText(theirs, 'query-editor'), 'db.theirs.find().limit(1)');
  assert.equal(await mine.$('#copy-note'), null, 'the tab on the saved work was not disturbed');
  // A reload of the link's tab finds its copy, not the saved work; the note stays.
  await theirs.reload();
  await theirs.waitForSelector('body[data-ready="true"]');
  assert.equal(await editorText(theirs, 'query-editor'), 'db.theirs.find().limit(1)');
  assert.ok(await theirs.isVisible('#copy-note'));
  await theirs.setViewportSize({ width: 390, height: 844 });
  await shot(theirs, 'link-beside-phone');
  await theirs.setViewportSize({ width: 1366, height: 768 });
  // Making the copy the saved work: the other tab, which was on it, saves its next edit to a copy.
  await theirs.click('#copy-adopt');
  await theirs.waitForFunction(() => !document.getElementById('copy-note'));
  assert.equal((await savedWork(theirs)).script, 'db.theirs.find().limit(1)');
  await mine.click('#query-editor .cm-content');
  await mine.keyboard.press('ControlOrMeta+End');
  await mine.keyboard.insertText(';');
  await mine.waitForSelector('#copy-note[data-why="moved"]');
  assert.match(await mine.textContent('#copy-note'), /Another tab changed the saved work/);
  assert.equal((await savedWork(mine)).script, 'db.theirs.find().limit(1)', 'the moved tab saves to its copy');
  assert.equal(await editorText(mine, 'query-editor'), 'db.mine.find().limit(2);');
  // Its copy holds its text: a reload of that tab finds it.
  await mine.reload();
  await mine.waitForSelector('body[data-ready="true"]');
  assert.equal(await editorText(mine, 'query-editor'), 'db.mine.find().limit(2);');
  await mine.close();
  await theirs.close();
});

test('templates: blank, explain with createIndex, $facet, $setWindowFields, $bucket, $graphLookup', async () => {
  const page = await newPage(session);
  await page.goto(`${session.origin}/`);
  await page.waitForSelector('body[data-ready="true"]');
  for (const [id, expect] of [
    ['blank', /name: 'first'/],
    ['explain-index', /stage: 'IXSCAN'/],
    ['facet', /byCategory/],
    ['window', /runningQty/],
    ['bucket', /count: 2/],
    ['graph-lookup', /chain: \[ 'Ana', 'Bo', 'Chen' \]/],
  ]) {
    const n = await runs(page);
    await page.click('#templates');
    await page.click(`[data-template="${id}"]`);
    await waitRuns(page, n + 1);
    assert.equal(await page.$('#result .error'), null, id);
    assert.match(await page.textContent('#result'), expect, id);
    assert.match(await editorText(page, 'query-editor'), /\/\/ /, `${id} is commented`);
  }
  await shot(page, 'template-graph-lookup');
  await page.close();
});

test('nothing was logged', () => {
  assert.deepEqual(session.problems, []);
});
