// The Result pane: each statement's result (shell text, tree, or Extended JSON),
// then each changed collection with inserted/changed/removed documents marked.
// Everything is built with createElement/textContent: no HTML from data, ever.

const MAX_TEXT = 1_000_000; // characters of one result shown before "truncated"
const MAX_MARKED = 200; // changed documents shown per collection before folding the rest

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
  if (text.length > MAX_TEXT) text = text.slice(0, MAX_TEXT) + '\n… (output truncated)';
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

/** A relaxed-EJSON scalar wrapper shown as mongosh shows it, or null. */
function wrapper(v) {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
  const keys = Object.keys(v);
  if (keys.length === 0 || keys.length > 2 || !keys[0].startsWith('$')) return null;
  const [k] = keys;
  if (k === '$oid') return `ObjectId('${v.$oid}')`;
  if (k === '$date') return `ISODate('${typeof v.$date === 'string' ? v.$date : v.$date.$numberLong ?? JSON.stringify(v.$date)}')`;
  if (k === '$numberLong') return `Long('${v.$numberLong}')`;
  if (k === '$numberDecimal') return `Decimal128('${v.$numberDecimal}')`;
  if (k === '$numberDouble') return v.$numberDouble;
  if (k === '$numberInt') return v.$numberInt;
  if (k === '$timestamp') return `Timestamp({ t: ${v.$timestamp.t}, i: ${v.$timestamp.i} })`;
  if (k === '$binary') return `Binary.createFromBase64('${v.$binary.base64}', ${parseInt(v.$binary.subType, 16)})`;
  if (k === '$regularExpression') return `/${v.$regularExpression.pattern}/${v.$regularExpression.options}`;
  if (k === '$minKey') return 'MinKey()';
  if (k === '$maxKey') return 'MaxKey()';
  if (k === '$undefined') return 'undefined';
  if (k === '$symbol') return `Symbol('${v.$symbol}')`;
  if (k === '$code' && keys.length === 1) return `Code('${v.$code}')`;
  return null;
}

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
    if (entries.length > 5000) box.append(el('div', { class: 'muted', text: `… ${entries.length - 5000} more` }));
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
 * inserted (its `_id` was not there), changed, or unchanged; documents gone are removed.
 */
export function diffCollections(base, final, names) {
  const out = [];
  for (const name of names) {
    const before = base[name];
    const after = final[name];
    if (!after) { out.push({ name, dropped: true, docs: [], removed: before ?? [] }); continue; }
    const old = new Map((before ?? []).map((d, i) => [keyOf(d), { doc: d, i }]));
    const seen = new Set();
    const docs = after.map((doc, i) => {
      const k = keyOf(doc);
      seen.add(k);
      const prev = old.get(k);
      if (!prev) return { doc, i, mark: 'inserted' };
      return { doc, i, mark: JSON.stringify(prev.doc) === JSON.stringify(doc) ? null : 'changed' };
    });
    const removed = (before ?? []).filter((d) => !seen.has(keyOf(d)));
    const created = !before;
    if (created || removed.length || docs.some((d) => d.mark)) out.push({ name, created, docs, removed });
  }
  return out;
}

const MARK_LABEL = { inserted: '+ inserted', changed: '~ changed', removed: '− removed' };

function docRow(view, shell, ejson, mark) {
  const row = el('div', { class: `doc${mark ? ' doc-' + mark : ''}` });
  if (mark) row.append(el('span', { class: 'doc-mark', text: MARK_LABEL[mark] }));
  row.append(renderValue(view, shell, ejson));
  return row;
}

// --- the pane ---------------------------------------------------------------

/**
 * Render a run: `{out, stmts, ms}` from the worker. `onErrorClick` jumps to the error.
 */
export function renderRun(container, view, run, { onErrorClick } = {}) {
  container.replaceChildren();
  const { out, stmts } = run;
  const results = out.results ?? [];
  results.forEach((ejson, i) => {
    const stmt = stmts?.[i];
    const title = stmt ? firstLine(stmt.text) : `Result ${i + 1}`;
    const block = el('section', { class: 'result', 'aria-label': `Result ${i + 1}` },
      el('h3', { class: 'result-title' },
        el('span', { class: 'result-num', text: `${i + 1}` }),
        el('code', { text: title })),
      renderValue(view, out.shell?.[i] ?? '', ejson));
    const work = out.work?.[i];
    if (work) block.append(workLine(work));
    container.append(block);
  });
  if (out.error) container.append(errorBlock(out.error, onErrorClick));
  if (results.length === 0 && !out.error) {
    container.append(el('p', { class: 'muted empty', text: 'The script ran without results (only assignments or nothing to run).' }));
  }
  // The engine lists only the collections the script changed, with their initial documents.
  const names = new Set([...Object.keys(out.collectionsShell ?? {}), ...Object.keys(out.initial ?? {})]);
  if (names.size) {
    const changes = diffCollections(out.initial ?? {}, out.collections ?? {}, names);
    if (changes.length) {
      const sec = el('section', { class: 'collections', 'aria-label': 'Changed collections' },
        el('h3', { class: 'section-title', text: 'Collections after the run' }));
      for (const c of changes) sec.append(collectionBlock(view, c, out));
      container.append(sec);
    }
  }
}

// "Work done" under a read's result: index or collection scan, keys and
// documents examined; it opens to the read's explain("executionStats").
function workLine(w) {
  const plural = (n, one) => `${n.toLocaleString('en-US')} ${one}${n === 1 ? '' : 's'}`;
  const how = w.index ? `${w.stage} on index ${w.index}` : w.stage === 'COLLSCAN' ? 'COLLSCAN (collection scan, no index)' : w.stage;
  const text = `Work done: ${how} · ${plural(w.keysExamined, 'key')} and ${plural(w.docsExamined, 'document')} examined · ${plural(w.nReturned, 'result')}`;
  const details = el('details', { class: 'work' }, el('summary', { class: 'work-line', text }));
  // The explain is printed only when opened.
  details.addEventListener('toggle', () => {
    if (!details.open || details.querySelector('.work-explain')) return;
    const pre = shellText(w.explain ?? '');
    pre.classList.replace('shell', 'work-explain');
    details.append(
      el('p', { class: 'muted work-note', text: 'explain("executionStats") of this read (the playground shows times as 0):' }),
      pre);
  });
  return details;
}

function collectionBlock(view, change, out) {
  const counts = [];
  const n = (m) => change.docs.filter((d) => d.mark === m).length;
  if (change.created) counts.push('new collection');
  if (change.dropped) counts.push('dropped');
  if (n('inserted')) counts.push(`${n('inserted')} inserted`);
  if (n('changed')) counts.push(`${n('changed')} changed`);
  if (change.removed.length && !change.dropped) counts.push(`${change.removed.length} removed`);
  const box = el('details', { class: 'collection', open: '' },
    el('summary', {},
      el('code', { class: 'coll-name', text: change.name }),
      el('span', { class: 'muted', text: ` — ${change.docs.length} document${change.docs.length === 1 ? '' : 's'}; ${counts.join(', ')}` })));
  const shells = out.collectionsShell?.[change.name] ?? [];
  // Unchanged documents stay in their place, folded, so the changes stand out.
  let run = [];
  const flush = () => {
    if (!run.length) return;
    const group = run;
    const fold = el('details', { class: 'unchanged' },
      el('summary', { class: 'muted', text: `${group.length} unchanged document${group.length === 1 ? '' : 's'}` }));
    fold.addEventListener('toggle', () => {
      if (!fold.open || fold.childElementCount > 1) return;
      for (const d of group) fold.append(docRow(view, shells[d.i] ?? JSON.stringify(d.doc), d.doc, null));
    });
    box.append(fold);
    run = [];
  };
  // Past MAX_MARKED documents the rest are folded too: a 100 000-document insert stays cheap.
  let shown = 0;
  const rest = [];
  for (const d of change.docs) {
    if (shown >= MAX_MARKED) { rest.push(d); continue; }
    if (!d.mark) { run.push(d); continue; }
    flush();
    box.append(docRow(view, shells[d.i] ?? JSON.stringify(d.doc), d.doc, d.mark));
    shown += 1;
  }
  flush();
  const removed = change.removed.map((d) => ({ doc: d, mark: 'removed' }));
  const removedView = view === 'shell' ? 'ejson' : view; // removed documents have no shell text
  const more = [...rest, ...removed.slice(Math.max(0, MAX_MARKED - shown))];
  for (const d of removed.slice(0, Math.max(0, MAX_MARKED - shown))) box.append(docRow(removedView, '', d.doc, 'removed'));
  if (more.length) {
    const fold = el('details', { class: 'unchanged' },
      el('summary', { class: 'muted', text: `${more.length} more document${more.length === 1 ? '' : 's'}` }));
    fold.addEventListener('toggle', () => {
      if (!fold.open || fold.childElementCount > 1) return;
      for (const d of more.slice(0, 5000)) {
        fold.append(d.mark === 'removed'
          ? docRow(removedView, '', d.doc, 'removed')
          : docRow(view, shells[d.i] ?? JSON.stringify(d.doc), d.doc, d.mark));
      }
      if (more.length > 5000) fold.append(el('p', { class: 'muted', text: `… and ${more.length - 5000} more` }));
    });
    box.append(fold);
  }
  return box;
}

function firstLine(text) {
  const line = text.split('\n').map((s) => s.trim()).filter(Boolean).join(' ');
  return line.length > 120 ? line.slice(0, 117) + '…' : line;
}

export function errorText(err) {
  const where = err.line ? `${err.source === 'db' ? 'Database' : 'Query'} line ${err.line}, column ${err.column}: ` : '';
  return `${where}(${err.codeName}) ${err.message}`;
}

function errorBlock(err, onClick) {
  const box = el('section', { class: 'error', role: 'alert' });
  box.append(el('p', { class: 'error-title', text: errorText(err) }));
  if (err.excerpt) box.append(el('pre', { class: 'excerpt', text: err.excerpt }));
  if (err.line && onClick) {
    const b = el('button', { class: 'linkish', type: 'button', text: 'Show in the editor' });
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
