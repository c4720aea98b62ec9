// The Result pane: each statement's result (shell text, tree, or Extended JSON),
// then each changed collection with inserted/changed/removed documents marked,
// changed documents with their changed fields (dotted paths, before → after).
// Everything is built with createElement/textContent: no HTML from data, ever.
import { wrapperText, shellInline, fieldChanges, DIFF_LIMIT } from './diff.js';
import { t, num, engineMessage } from './i18n.js';

/** Every text this module puts on the page. */
export const TEXT = {
  get noResults() { return t('results.noResults'); },
  get collectionsTitle() { return t('results.collectionsTitle'); },
  get changedCollections() { return t('results.changedCollections'); },
  result: (i) => t('results.result', { i }),
  get marks() { return { inserted: t('results.markInserted'), changed: t('results.markChanged'), removed: t('results.markRemoved') }; },
  unchanged: (n) => t('results.unchanged', { n }),
  more: (n) => t('results.more', { n }),
  andMore: (n) => t('results.andMore', { n }),
  moreItems: (n) => t('results.moreItems', { n }),
  get truncated() { return `\n${t('results.truncated')}`; },
  get newCollection() { return t('results.newCollection'); },
  get dropped() { return t('results.dropped'); },
  inserted: (n) => t('results.inserted', { n }),
  changed: (n) => t('results.changed', { n }),
  removed: (n) => t('results.removed', { n }),
  documents: (n) => t('results.documents', { n }),
  get fieldsChanged() { return t('results.fieldsChanged'); },
  get fieldAdded() { return t('results.fieldAdded'); },
  get fieldRemoved() { return t('results.fieldRemoved'); },
  get onlyOrder() { return t('results.onlyOrder'); },
  get moreFields() { return t('results.moreFields', { n: DIFF_LIMIT }); },
  work: (how, keys, docs, returned, counted) => t('results.work', { how, keys, docs, returned: counted ?? returned }),
  keys: (n) => t('results.keys', { n: num(n) }),
  docs: (n) => t('results.docs', { n: num(n) }),
  returned: (n) => t('results.returned', { n: num(n) }),
  counted: (n) => t('results.counted', { n: num(n) }),
  get collscan() { return t('results.collscan'); },
  onIndex: (stage, index) => t('results.onIndex', { stage, index }),
  get workNote() { return t('results.workNote'); },
  get showInEditor() { return t('results.showInEditor'); },
  failedStatement: (n) => t('results.failedStatement', { n }),
  shownOf: (shown, total) => t('results.shownOf', { shown: num(shown), total: num(total) }),
  showMore: (n) => t('results.showMore', { n: num(n) }),
  get pageGone() { return t('results.pageGone'); },
  get dbPane() { return t('results.dbPane'); },
  get queryPane() { return t('results.queryPane'); },
  at: (pane, line, column) => t('results.at', { pane, line, column }),
};

const MAX_TEXT = 1_000_000; // characters of one result shown before "truncated"
const MAX_MARKED = 200; // changed documents shown per collection before folding the rest
const PAGE = 100; // documents fetched per "Show more" (the engine's first page is as long)

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c) node.append(c);
  return node;
}

// --- shell text with light colouring --------------------------------------

// Tokens of mongosh's output: strings, wrappers (ObjectId(...)), numbers, keywords, keys.
const TOKEN = /('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")|\b(ObjectId|ISODate|Long|Int32|Decimal128|Double|Timestamp|Binary|UUID|BSONRegExp|MinKey|MaxKey|Code|DBRef|BSONSymbol)\b|(-?\b\d+(?:\.\d+)?(?:e[+-]?\d+)?\b|\bNaN\b|-?\bInfinity\b)|\b(true|false|null|undefined)\b|([A-Za-z_$][\w$]*)(?=:)|(\/(?:[^/\\\n]|\\.)+\/[a-z]*)/g;
const KINDS = [null, 'string', 'type', 'number', 'atom', 'key', 'regex'];

export function shellText(text) {
  const pre = el('pre', { class: 'shell' });
  if (text.length > MAX_TEXT) text = text.slice(0, MAX_TEXT) + TEXT.truncated;
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    if (m.index > last) pre.append(text.slice(last, m.index));
    const kind = KINDS[m.slice(1).findIndex((g) => g !== undefined) + 1];
    pre.append(el('span', { class: `tok-${kind}`, text: m[0] }));
    last = m.index + m[0].length;
  }
  if (last < text.length) pre.append(text.slice(last));
  return pre;
}

// --- tree -------------------------------------------------------------------

const wrapper = wrapperText;

function scalarNode(v) {
  const w = wrapper(v);
  if (w !== null) return el('span', { class: 'tok-type', text: w });
  if (typeof v === 'string') return el('span', { class: 'tok-string', text: JSON.stringify(v) });
  if (typeof v === 'number') return el('span', { class: 'tok-number', text: String(v) });
  return el('span', { class: 'tok-atom', text: String(v) });
}

function isContainer(v) {
  return v !== null && typeof v === 'object' && wrapper(v) === null;
}

function summary(v) {
  if (Array.isArray(v)) return `Array (${v.length})`;
  const n = Object.keys(v).length;
  return `Object (${n} field${n === 1 ? '' : 's'})`;
}

/** A collapsible tree; children are built when first opened (big results stay cheap). */
export function tree(value, key = null, depth = 0) {
  const label = () => {
    const frag = document.createDocumentFragment();
    if (key !== null) frag.append(el('span', { class: 'tok-key', text: String(key) }), ': ');
    return frag;
  };
  if (!isContainer(value)) return el('div', { class: 'tree-leaf' }, label(), scalarNode(value));
  const details = el('details', { class: 'tree-node' });
  const sum = el('summary', {}, label(), el('span', { class: 'tree-summary', text: summary(value) }));
  details.append(sum);
  let built = false;
  const build = () => {
    if (built) return;
    built = true;
    const box = el('div', { class: 'tree-children' });
    const entries = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
    for (const [k, v] of entries.slice(0, 5000)) box.append(tree(v, k, depth + 1));
    if (entries.length > 5000) box.append(el('div', { class: 'muted', text: TEXT.moreItems(entries.length - 5000) }));
    details.append(box);
  };
  details.addEventListener('toggle', () => { if (details.open) build(); });
  if (depth < 2) { details.open = true; build(); }
  return details;
}

function ejsonText(value) {
  let text = JSON.stringify(value, null, 2) ?? 'undefined';
  return shellText(text);
}

function renderValue(view, shell, ejson) {
  if (view === 'tree') return el('div', { class: 'tree' }, tree(ejson));
  if (view === 'ejson') return ejsonText(ejson);
  return shellText(shell);
}

// --- collections diff -----------------------------------------------------

const keyOf = (doc) => JSON.stringify(doc && typeof doc === 'object' ? doc._id : undefined);

/**
 * Mark what a run did to the collections it changed (`names`): each final document is
 * inserted (its `_id` was not there), changed (with `before`, the initial version),
 * or unchanged; documents gone are removed (`i`: their place in the initial list).
 */
export function diffCollections(base, final, names) {
  const out = [];
  for (const name of names) {
    const before = base[name];
    const after = final[name];
    if (!after) { out.push({ name, dropped: true, docs: [], removed: (before ?? []).map((doc, i) => ({ doc, i })) }); continue; }
    const old = new Map((before ?? []).map((d, i) => [keyOf(d), { doc: d, i }]));
    const seen = new Set();
    const docs = after.map((doc, i) => {
      const k = keyOf(doc);
      seen.add(k);
      const prev = old.get(k);
      if (!prev) return { doc, i, mark: 'inserted' };
      return JSON.stringify(prev.doc) === JSON.stringify(doc) ? { doc, i, mark: null } : { doc, i, mark: 'changed', before: prev.doc };
    });
    const removed = [];
    (before ?? []).forEach((doc, i) => { if (!seen.has(keyOf(doc))) removed.push({ doc, i }); });
    const created = !before;
    if (created || removed.length || docs.some((d) => d.mark)) out.push({ name, created, docs, removed });
  }
  return out;
}

/** A value in a diff line, in the view's format. */
function valueText(view, v) {
  return view === 'ejson' ? JSON.stringify(v) ?? 'undefined' : shellInline(v);
}

/** The changed fields of one document: `path: before → after`, added and removed marked. */
export function changesList(view, before, after) {
  const changes = fieldChanges(before, after);
  const box = el('ul', { class: 'field-changes', 'aria-label': TEXT.fieldsChanged });
  if (!changes.length) box.append(el('li', { class: 'muted', text: TEXT.onlyOrder }));
  for (const c of changes) {
    const li = el('li', { class: `field-${c.kind}` }, el('code', { class: 'field-path', text: c.path }), ': ');
    if (c.kind === 'changed') {
      li.append(el('code', { class: 'field-before', text: valueText(view, c.before) }), ' → ',
        el('code', { class: 'field-after', text: valueText(view, c.after) }));
    } else if (c.kind === 'added') {
      li.append(el('code', { class: 'field-after', text: valueText(view, c.after) }), ' ', el('span', { class: 'field-kind', text: TEXT.fieldAdded }));
    } else {
      li.append(el('code', { class: 'field-before', text: valueText(view, c.before) }), ' ', el('span', { class: 'field-kind', text: TEXT.fieldRemoved }));
    }
    box.append(li);
  }
  if (changes.length >= DIFF_LIMIT) box.append(el('li', { class: 'muted', text: TEXT.moreFields }));
  return box;
}

function docRow(view, shell, ejson, mark, before) {
  const row = el('div', { class: `doc${mark ? ' doc-' + mark : ''}` });
  if (mark) row.append(el('span', { class: 'doc-mark', text: TEXT.marks[mark] }));
  row.append(renderValue(view, shell, ejson));
  if (mark === 'changed' && before !== undefined) row.append(changesList(view, before, ejson));
  return row;
}

// --- the pane ---------------------------------------------------------------

/**
 * Render a run: `{out, stmts, ms}` from the worker. `onErrorClick` jumps to the error;
 * `tools(i, head)` may add buttons to result `i`, `collectionTool(name)` give a changed
 * collection's button; `more(i, from, count)` fetches documents of a long result past
 * those shown (a promise of {docs, shell} or null). Returns the error block, if any.
 */
export function renderRun(container, view, run, { onErrorClick, tools, collectionTool, more } = {}) {
  container.replaceChildren();
  const { out, stmts } = run;
  const results = out.results ?? [];
  results.forEach((ejson, i) => {
    const stmt = stmts?.[i];
    const title = stmt ? firstLine(stmt.text) : TEXT.result(i + 1);
    const head = el('h3', { class: 'result-title' },
      el('span', { class: 'result-num', text: `${i + 1}` }),
      el('code', { text: title }));
    const block = el('section', { class: 'result', 'aria-label': TEXT.result(i + 1) },
      head, renderValue(view, out.shell?.[i] ?? '', ejson));
    tools?.(i, head);
    const total = out.totals?.[i];
    if (total && more) block.append(pager(view, run, i, total, more));
    const work = out.work?.[i];
    if (work) block.append(workLine(work));
    container.append(block);
  });
  let errorBox = null;
  if (out.error) {
    errorBox = errorBlock(out.error, onErrorClick, stmts);
    container.append(errorBox);
  }
  if (results.length === 0 && !out.error) {
    container.append(el('p', { class: 'muted empty', text: TEXT.noResults }));
  }
  // The engine lists only the collections the script changed, with their initial documents.
  const names = new Set([...Object.keys(out.collectionsShell ?? {}), ...Object.keys(out.initial ?? {})]);
  if (names.size) {
    const changes = diffCollections(out.initial ?? {}, out.collections ?? {}, names);
    if (changes.length) {
      const sec = el('section', { class: 'collections', 'aria-label': TEXT.changedCollections },
        el('h3', { class: 'section-title', text: TEXT.collectionsTitle }));
      for (const c of changes) sec.append(collectionBlock(view, c, out, collectionTool?.(c.name)));
      container.append(sec);
    }
  }
  return errorBox;
}

// The rest of a long result, a page at a time: the engine handed over only its
// first documents (converting thousands to JavaScript objects is the slow part).
// Pages already fetched are kept on the run, so a change of view redraws them.
function pager(view, run, i, total, more) {
  const extra = (run.extra ??= {})[i] ??= { docs: [], shell: [] };
  const first = run.out.results[i]?.length ?? 0;
  const box = el('div', { class: 'result-pages' });
  const rows = el('div', { class: 'result-more-docs' });
  const note = el('span', { class: 'muted result-count' });
  const button = el('button', { class: 'linkish result-more', type: 'button' });
  const add = (docs, shell, from) => {
    docs.forEach((d, j) => rows.append(el('div', { class: 'doc' }, renderValue(view, shell[from + j] ?? '', d))));
  };
  const update = () => {
    const shown = first + extra.docs.length;
    note.textContent = TEXT.shownOf(shown, total);
    button.textContent = TEXT.showMore(Math.min(PAGE, total - shown));
    button.hidden = shown >= total;
  };
  add(extra.docs, extra.shell, 0);
  button.addEventListener('click', async () => {
    button.disabled = true;
    const from = first + extra.docs.length;
    const page = await more(i, from, PAGE);
    button.disabled = false;
    if (!page) {
      note.textContent = TEXT.pageGone;
      button.hidden = true;
      return;
    }
    const at = extra.docs.length;
    extra.docs.push(...page.docs);
    extra.shell.push(...page.shell);
    add(extra.docs.slice(at), extra.shell, at);
    update();
  });
  update();
  box.append(rows, el('p', { class: 'result-pager' }, note, ' ', button));
  return box;
}

// "Work done" under a read's result: index or collection scan, keys and
// documents examined (and, for a count, the documents counted); it opens to
// the read's explain("executionStats").
function workLine(w) {
  const how = w.index ? TEXT.onIndex(w.stage, w.index) : w.stage === 'COLLSCAN' ? TEXT.collscan : w.stage;
  const counted = w.nCounted == null ? null : TEXT.counted(w.nCounted);
  const text = TEXT.work(how, TEXT.keys(w.keysExamined), TEXT.docs(w.docsExamined), TEXT.returned(w.nReturned), counted);
  const details = el('details', { class: 'work' }, el('summary', { class: 'work-line', text }));
  // The explain is printed only when opened.
  details.addEventListener('toggle', () => {
    if (!details.open || details.querySelector('.work-explain')) return;
    const pre = shellText(w.explain ?? '');
    pre.classList.replace('shell', 'work-explain');
    details.append(el('p', { class: 'muted work-note', text: TEXT.workNote }), pre);
  });
  return details;
}

function collectionBlock(view, change, out, button) {
  const counts = [];
  const n = (m) => change.docs.filter((d) => d.mark === m).length;
  if (change.created) counts.push(TEXT.newCollection);
  if (change.dropped) counts.push(TEXT.dropped);
  if (n('inserted')) counts.push(TEXT.inserted(n('inserted')));
  if (n('changed')) counts.push(TEXT.changed(n('changed')));
  if (change.removed.length && !change.dropped) counts.push(TEXT.removed(change.removed.length));
  const box = el('details', { class: 'collection', open: '' },
    el('summary', {},
      el('code', { class: 'coll-name', text: change.name }),
      el('span', { class: 'muted', text: ` — ${TEXT.documents(change.docs.length)}; ${counts.join(', ')}` }),
      button ?? null));
  const shells = out.collectionsShell?.[change.name] ?? [];
  const initialShells = out.initialShell?.[change.name] ?? [];
  const row = (d) => (d.mark === 'removed'
    ? docRow(view, initialShells[d.i] ?? shellInline(d.doc), d.doc, 'removed')
    : docRow(view, shells[d.i] ?? shellInline(d.doc), d.doc, d.mark, d.before));
  // Unchanged documents stay in their place, folded, so the changes stand out.
  let group = [];
  const flush = () => {
    if (!group.length) return;
    const docs = group;
    const fold = el('details', { class: 'unchanged' }, el('summary', { class: 'muted', text: TEXT.unchanged(docs.length) }));
    fold.addEventListener('toggle', () => {
      if (!fold.open || fold.childElementCount > 1) return;
      for (const d of docs) fold.append(row(d));
    });
    box.append(fold);
    group = [];
  };
  // Past MAX_MARKED documents the rest are folded too: a 100 000-document insert stays cheap.
  let shown = 0;
  const rest = [];
  for (const d of change.docs) {
    if (shown >= MAX_MARKED) { rest.push(d); continue; }
    if (!d.mark) { group.push(d); continue; }
    flush();
    box.append(row(d));
    shown += 1;
  }
  flush();
  const removed = change.removed.map((r) => ({ ...r, mark: 'removed' }));
  const room = Math.max(0, MAX_MARKED - shown);
  for (const d of removed.slice(0, room)) box.append(row(d));
  const more = [...rest, ...removed.slice(room)];
  if (more.length) {
    const fold = el('details', { class: 'unchanged' }, el('summary', { class: 'muted', text: TEXT.more(more.length) }));
    fold.addEventListener('toggle', () => {
      if (!fold.open || fold.childElementCount > 1) return;
      for (const d of more.slice(0, 5000)) fold.append(row(d));
      if (more.length > 5000) fold.append(el('p', { class: 'muted', text: TEXT.andMore(more.length - 5000) }));
    });
    box.append(fold);
  }
  return box;
}

export function firstLine(text) {
  const line = text.split('\n').map((s) => s.trim()).filter(Boolean).join(' ');
  return line.length > 120 ? line.slice(0, 117) + '…' : line;
}

/** An error in plain words, naming the pane at fault (and the place, when known). */
export function errorText(err) {
  const pane = err.source === 'db' ? TEXT.dbPane : err.source === 'script' ? TEXT.queryPane : null;
  const where = err.line ? TEXT.at(pane ?? TEXT.queryPane, err.line, err.column) : pane === TEXT.dbPane ? `${pane}: ` : '';
  return `${where}(${err.codeName}) ${engineMessage(err)}`;
}

/** The statement an error lies in (`stmts`: the statements with results), if any. */
export function statementOf(err, stmts) {
  if (err.source !== 'script' || err.start == null) return null;
  const i = (stmts ?? []).findIndex((s) => s.start <= err.start && err.start <= s.end);
  return i < 0 ? null : { index: i, ...stmts[i] };
}

function errorBlock(err, onClick, stmts) {
  const box = el('section', { class: 'error', role: 'alert' });
  const stmt = statementOf(err, stmts);
  if (stmt) {
    box.append(el('p', { class: 'error-stmt' }, el('span', { text: TEXT.failedStatement(stmt.index + 1) }), ' ',
      el('code', { text: firstLine(stmt.text) })));
  }
  box.append(el('p', { class: 'error-title', text: errorText(err) }));
  if (err.excerpt) box.append(el('pre', { class: 'excerpt', text: err.excerpt }));
  if (err.line && onClick) {
    const b = el('button', { class: 'linkish', type: 'button', text: TEXT.showInEditor });
    b.addEventListener('click', () => onClick(err));
    box.append(b);
  }
  return box;
}

/** A message in place of results (stopped, crashed, a broken link). */
export function renderMessage(container, kind, text) {
  container.replaceChildren(el('section', { class: kind === 'error' ? 'error' : 'notice', role: kind === 'error' ? 'alert' : 'status' },
    el('p', { class: 'error-title', text })));
}

export { el, renderValue };
