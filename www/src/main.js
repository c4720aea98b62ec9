// mqlplay's page: wires the editors, the engine worker, the result pane,
// share links, autosave, templates, theme and dialogs together.
import { createEditor, getText, setText, showError, clearError, showCheck, relabelEditor } from './editors.js';
import { Assistant, docsCard } from './assist.js';
import { getRunner, takeEarlyRun, loadEngine, format, encodeLink, decodeLink, statementsOf, TIME_LIMIT_MS } from './engine.js';
import { state, restoreSaved, saveState, runJob, isLink, onCopy, useCopy, adoptCopy, slotKey } from './state.js';
import { renderRun, renderMessage, errorText, statementOf, el } from './results.js';
import { resultFrom, checkStale } from './stale.js';
import { markStatement, clearStatement } from './marks.js';
import { stagesController } from './stages.js';
import { resultTools, collectionTool, allCollections } from './export.js';
import { setupCursorRun, statementAt, TEXT as CURSOR_TEXT } from './cursor_run.js';
import { askReplace, differs, dropLinkFromAddress, copyNote, TEXT as LINK_TEXT } from './links.js';
import { showSettings, setupSettings, showView, setupViews, applyTheme, setupTheme } from './settings.js';
import { setupTemplates, relabelTemplates } from './templates_menu.js';
import { setupLayout } from './layout.js';
import { setupTutorials } from '../tutorials/tutorials.js';
import { t, num, language, onLanguage, setupPicker, startLanguage, setLinkLanguage, languageOf, engineMessage } from './i18n.js';

const LINK_WARN_BYTES = 8000;
const $ = (id) => document.getElementById(id);


/**
 * What other parts of the page (tutorials) use: the state, the editors, runs.
 * `events` fires `run` (detail: the run, or {stopped}; `first` on the start-up run) after every run and
 * `state` when a link or template replaces the editors.
 */
export const events = new EventTarget();
export const app = {
  get state() { return state; },
  get lastRun() { return lastRun; },
  setEditors: (db, script) => { setEditors(db, script); save(); },
  setTutorial: (tutorial, step) => { state.tutorial = tutorial; state.step = step; save(); },
  showNotice: (text) => { lastRun = null; renderMessage($('result'), 'notice', text); $('run-info').textContent = ''; },
  run: () => run(),
  events,
};

// ---- state -----------------------------------------------------------------

let saveTimer = 0;
let dirty = false; // changed since the last save
let slotTaken = false; // another tab wrote this tab's slot with other text (watchOtherTabs)
function save() {
  dirty = true;
  clearTimeout(saveTimer);
  saveTimer = setTimeout(saveNow, 300);
}
function saveNow() {
  clearTimeout(saveTimer);
  if (slotTaken) {
    if (!dirty) return; // nothing of ours to save: the other tab's text stays
    // Ours goes to a copy of its own rather than over the other tab's.
    slotTaken = false;
    useCopy();
    showCopyNote('moved');
  }
  dirty = false;
  if (!saveState()) status(t('status.autosaveSkipped'));
}

// ---- editors -----------------------------------------------------------------

const commands = [
  { key: 'Mod-Enter', run: () => { run(); return true; } },
  { key: 'Mod-Shift-Enter', run: () => { runAtCursor(); return true; } },
  { key: 'Shift-Alt-f', run: () => { formatBoth(); return true; } },
  { key: 'Escape', run: () => { if (!runner.busy) return false; runner.stop('stop'); return true; } },
];

let dbView;
let scriptView;
// Diagnostics while typing and completion (assist.js).
const assistant = new Assistant((pane, diags) => showCheck(pane === 'db' ? dbView : scriptView, diags));

function createEditors() {

  dbView = createEditor($('db-editor'), {
    doc: state.db,
    label: t('pane.databaseLabel'),
    commands,
    onChange: (text) => { state.db = text; edited(); assistant.changed('db', text); },
  });
  scriptView = createEditor($('query-editor'), {
    doc: state.script,
    label: t('pane.queryLabel'),
    commands,
    assist: assistant,
    card: docsCard,
    onChange: (text) => { state.script = text; edited(); assistant.changed('script', text); },
  });
  assistant.changed('db', state.db);
  assistant.changed('script', state.script);
}

let replacing = false; // a link, template or tutorial sets the text: not the user's edit

function edited() {
  if (!replacing) {
    state.edited = true;
    dropLinkFromAddress(); // the link no longer matches the editors
  }
  save();
  checkStale(state, $('result'));
}

/** Replace both editors' text (a link, a template, a tutorial step). */
function setEditors(db, script, fromLink = false) {
  replacing = true;
  try {
    setText(dbView, db);
    setText(scriptView, script);
  } finally {
    replacing = false;
  }
  state.db = db;
  state.script = script;
  state.edited = false;
  if (!fromLink) dropLinkFromAddress();
}

// ---- running -----------------------------------------------------------------

const runner = getRunner();
runner.timeLimit = TIME_LIMIT_MS;
runner.spawn(); // a worker starts up while this thread builds the page (if boot.js has not)

function showBusy(busy) {
  $('stop').disabled = !busy;
  $('result').setAttribute('aria-busy', String(busy));
  document.body.classList.toggle('busy', busy);
}

let lastRun = null;
let tutorials = null; // the Tutorials menu and step panel (../tutorials/)
let runToken = 0;

function status(text) {
  $('status').textContent = text;
}

let placeMarkers = () => {}; // the ▶ beside each statement (cursor_run.js)

/** Run the statement at `pos` (default: the Query pane's cursor) and the ones before it. */
async function runAtCursor(pos = scriptView.state.selection.main.head) {
  const stmts = await statementsOf(state.script);
  const at = statementAt(stmts, pos);
  return at ? run(false, { ...at, total: stmts.length }) : run();
}

/**
 * Run the editors' text. `first`: adopt the boot script's run of the same state, if any.
 * `at`: run only up to that statement ({index, start, end, total}) and show its result.
 */
async function run(first = false, at = null) {
  const token = ++runToken;
  const job = runJob();
  const adopted = first ? takeEarlyRun(job) : null;
  if (state.liveNow && !adopted) state.now = Date.now();
  showSettings();
  clearError(dbView);
  clearError(scriptView);
  clearStatement(scriptView);
  status(t('status.running'));
  $('run-info').textContent = '';
  const started = performance.now();
  const slow = setTimeout(() => { if (token === runToken) renderMessage($('result'), 'notice', t('status.runningLong')); }, 400);
  // An open tutorial step's expectation goes with the run; the worker judges it.
  const sent = at ? { ...job, script: job.script.slice(0, at.end) } : job;
  const res = await (adopted ?? runner.run({ ...sent, check: await tutorials?.checkFor() }));
  clearTimeout(slow);
  if (token !== runToken) return; // a newer run replaced this one
  // `first`: the page's own run at start-up, not one the user asked for.
  events.dispatchEvent(new CustomEvent('run', { detail: first ? { ...res, first: true } : res }));
  if (res.stopped) {
    lastRun = null;
    const msg = res.stopped === 'crash'
      ? t('status.crashed', { message: res.message })
      : t('status.stopped', { message: res.message });
    // Stop is what the user asked for: a notice. A time limit or a crash is an error.
    renderMessage($('result'), res.stopped === 'stop' ? 'notice' : 'error', msg);
    resultFrom(null, $('result'));
    status(msg);
    $('run-info').textContent = '';
    return;
  }
  lastRun = res;
  shownJob = sent;
  resultFrom(job, $('result'));
  const errorBox = render();
  if (stages.open) stages.refresh();
  // On a phone the panes stack: bring the result into view after a run the user asked for.
  if (!first && window.matchMedia('(max-width: 820px)').matches) $('result-pane').scrollIntoView({ block: 'start' });
  if (!performance.getEntriesByName('mqlplay:first-result').length) performance.mark('mqlplay:first-result');
  const n = res.out.results?.length ?? 0;
  const total = performance.now() - started;
  $('run-info').textContent = t('status.runInfo', { ms: fmtMs(res.ms), n });
  $('run-info').title = t('status.runInfoTitle', { ms: fmtMs(res.ms), total: fmtMs(total) });
  const err = res.out.error;
  statementsOf(state.script).then(placeMarkers, () => {});
  if (at && !err) {
    const block = $('result').querySelectorAll('.result')[at.index];
    block?.classList.add('result-at-cursor');
    block?.scrollIntoView({ block: 'nearest' });
    markStatement(scriptView, at.start, at.end, 'ran');
  }
  if (err) {
    markError(err);
    // A runtime error below a long result: bring it, and its statement, into view.
    errorBox?.scrollIntoView({ block: 'nearest' });
    const stmt = statementOf(err, res.stmts);
    if (stmt) markStatement(scriptView, stmt.start, stmt.end, 'error');
    status(errorText(err));
  } else {
    status(at ? CURSOR_TEXT.ran(at.index + 1, at.total) : t('status.done', { n, ms: fmtMs(res.ms) }));
  }
  document.body.dataset.runs = String((Number(document.body.dataset.runs) || 0) + 1);
}

function fmtMs(ms) {
  return ms < 10 ? `${ms.toFixed(2)} ms` : ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

function markError(err) {
  if (err.start == null) return;
  const view = err.source === 'db' ? dbView : scriptView;
  showError(view, { start: err.start, end: err.end, message: `(${err.codeName}) ${engineMessage(err)}` });
}

function jumpTo(err) {
  const view = err.source === 'db' ? dbView : scriptView;
  const len = view.state.doc.length;
  view.dispatch({ selection: { anchor: Math.min(err.start, len), head: Math.min(err.end, len) }, scrollIntoView: true });
  view.focus();
}

function render() {
  if (!lastRun) return null;
  if (stages.open) { stages.redraw(); return null; }
  const run = lastRun;
  const errorBox = renderRun($('result'), state.view, run, {
    onErrorClick: jumpTo,
    tools: (i, head) => {
      const tools = el('span', { class: 'result-tools' }, ...resultTools(run.out, i, exporter, status));
      const b = stages.button(i);
      if (b) tools.prepend(b);
      head.append(tools);
    },
    collectionTool: (name) => collectionTool(name, exporter, status),
    more: (i, from, count) => getRunner().page(run.id, i, from, count),
  });
  const all = allCollections(run.out, exporter, status);
  if (all) $('result').append(all);
  return errorBox;
}

// Copy and Download (export.js): the shown run's job again, its result or
// collection written exactly by the engine.
let shownJob = null;
async function exported(what) {
  const res = await runner.run({ ...shownJob, export: what });
  if (res.stopped) throw new Error(res.message);
  if (res.out.error) throw new Error(errorText(res.out.error));
  return res.out.text;
}
const exporter = {
  result: (index, form) => exported({ index, form }),
  collection: (name, form) => exported({ name, form }),
};

// The Stages view of an aggregate (stages.js); it stays open across runs.
const stages = stagesController({
  runner,
  result: $('result'),
  job: () => runJob(),
  stmts: () => lastRun?.stmts,
  view: () => state.view,
  onShown: () => {
    resultFrom(runJob(), $('result'));
    document.body.dataset.stageRuns = String((Number(document.body.dataset.stageRuns) || 0) + 1);
  },
  onStopped: (res) => renderMessage($('result'), res.stopped === 'stop' ? 'notice' : 'error', res.message),
  onClose: () => render(),
});

// ---- format ------------------------------------------------------------------

async function formatBoth() {
  let failed = false;
  for (const [view, key] of [[dbView, 'db'], [scriptView, 'script']]) {
    clearError(view);
    const r = await format(getText(view));
    if (r.error) {
      failed = true;
      if (r.error.start != null) showError(view, { start: r.error.start, end: r.error.end, message: `(${r.error.codeName}) ${engineMessage(r.error)}` });
      status(t('status.formatFailed', { pane: t(key === 'db' ? 'results.dbPane' : 'results.queryPane'), codeName: r.error.codeName, message: engineMessage(r.error) }));
    } else {
      setText(view, r.text);
    }
  }
  if (!failed) status(t('status.formatted'));
}

// ---- links -------------------------------------------------------------------

/** Text a link can carry: a lone UTF-16 surrogate (pasted broken text) becomes U+FFFD. */
const wellFormed = (text) => (typeof text.toWellFormed === 'function' ? text.toWellFormed()
  : text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'));

function linkState() {
  const s = {
    db: wellFormed(state.db), script: wellFormed(state.script), now: state.now, seed: state.seed, view: state.view,
  };
  if (state.tutorial) s.tutorial = state.tutorial;
  if (state.step != null) s.step = state.step;
  // The sharer's language, the opener's default (`mqlplay link --lang` writes the same).
  s.lang = language();
  if (state.tz) s.tz = state.tz;
  return s;
}

async function share() {
  const r = await encodeLink(linkState());
  if (r.error) {
    status(t('share.failed', { error: r.error }));
    return;
  }
  const url = `${location.origin}${location.pathname}#${r.link}`;
  let copied = false;
  try {
    await navigator.clipboard.writeText(url);
    copied = true;
  } catch { /* no clipboard permission: the dialog shows the link to copy by hand */ }
  $('share-url').value = url;
  $('share-size').textContent = t(copied ? 'share.sizeCopied' : 'share.size', { n: num(url.length) });
  $('share-warn').hidden = url.length <= LINK_WARN_BYTES;
  $('share-dialog').showModal();
  $('share-url').select();
  status(t(copied ? 'share.copied' : 'share.ready'));
}

/**
 * Open a `#v1…` fragment. A broken link leaves the editors as they were; over
 * autosaved work that differs, the user chooses (`ask`).
 */
async function openLink(fragment, ask = false) {
  const r = await decodeLink(fragment);
  if (r.error) {
    // The engine names its reason (`link.why.<reason>`); its English is the fallback.
    banner(r.reason ? t('link.broken', { error: t(`link.why.${r.reason}`, r.params) }) : r.error);
    return false;
  }
  const s = r.state;
  if (languageOf(s.lang)) await setLinkLanguage(s.lang); // the sharer's language, unless the reader chose one
  const asked = ask && state.edited && differs(state, s);
  const choice = asked ? await askReplace() : 'replace';
  if (choice === 'keep') {
    dropLinkFromAddress();
    banner(null);
    status(LINK_TEXT.kept);
    return false;
  }
  if (choice === 'beside') {
    // The work stays saved as it is; this tab saves the link's work apart from it.
    saveNow();
    useCopy();
    showCopyNote('link');
  }
  setEditors(s.db, s.script, true);
  state.view = s.view;
  state.now = s.now;
  state.seed = s.seed;
  state.tz = s.tz ?? '';
  state.liveNow = false; // a link reproduces its run exactly
  state.tutorial = s.tutorial ?? null;
  state.step = s.step ?? null;
  showView();
  showSettings();
  saveNow();
  // The link stays in the address bar until the first edit (then autosave holds the work).
  banner(null);
  if (asked) status(choice === 'beside' ? LINK_TEXT.besideDone : LINK_TEXT.replaced);
  events.dispatchEvent(new CustomEvent('state', { detail: { source: 'link' } }));
  return true;
}

/** Say that this tab works on a copy (`why`: 'link' or 'moved'), with a way to make it the saved work. */
function showCopyNote(why) {
  copyNote(why, () => {
    if (!adoptCopy()) status(t('status.autosaveSkipped'));
    else status(LINK_TEXT.adopted);
    copyNote(null);
  });
}

// Another tab wrote the slot this tab saves to (it replaced the saved work
// with a link, or works on it too): this tab's next save moves its own text
// to a copy rather than overwrite the other's (see saveNow).
function watchOtherTabs() {
  window.addEventListener('storage', (e) => {
    if (e.key !== slotKey() || e.newValue == null) return;
    let theirs = null;
    try { theirs = JSON.parse(e.newValue); } catch { /* unreadable: treat as different */ }
    slotTaken = !theirs || differs(state, theirs);
  });
}

function banner(text) {
  const b = $('banner');
  b.hidden = !text;
  $('banner-text').textContent = text ?? '';
}

// ---- language --------------------------------------------------------------------

/** After a change of language: redraw what the page drew from the catalogue. */
function relabel() {
  applyTheme();
  showSettings();
  relabelTemplates();
  for (const [view, key] of [[dbView, 'pane.databaseLabel'], [scriptView, 'pane.queryLabel']]) {
    if (view) relabelEditor(view, t(key));
  }
  const note = document.getElementById('copy-note');
  if (note) showCopyNote(note.dataset.why);
  status('');
  render();
}

// ---- wiring --------------------------------------------------------------------

function setupButtons() {
  $('skip').addEventListener('click', () => scriptView.focus());
  $('run').addEventListener('click', () => run());
  $('stop').addEventListener('click', () => runner.stop('stop'));
  $('format').addEventListener('click', () => formatBoth());
  $('share').addEventListener('click', () => share());
  $('help').addEventListener('click', () => $('help-dialog').showModal());
  $('unsupported-link').addEventListener('click', () => {
    $('help-dialog').showModal();
    $('unsupported').scrollIntoView();
  });
  $('banner-close').addEventListener('click', () => banner(null));
  $('share-copy').addEventListener('click', async () => {
    $('share-url').select();
    try {
      await navigator.clipboard.writeText($('share-url').value);
      $('share-size').textContent = t('share.copiedShort');
    } catch {
      $('share-size').textContent = t('share.copyByHand');
    }
  });
  for (const d of document.querySelectorAll('dialog')) {
    d.querySelector('.dialog-close')?.addEventListener('click', () => d.close());
  }
  // Ctrl/Cmd+Enter runs from anywhere on the page; Esc stops a run.
  document.addEventListener('keydown', (e) => {
    if (e.defaultPrevented) return; // an editor already handled it (its own Mod-Enter runs)
    if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') {
      e.preventDefault();
      if (e.shiftKey) runAtCursor(); else run();
    } else if (e.key === 'Escape' && runner.busy && !document.querySelector('dialog[open]')) {
      runner.stop('stop');
    }
  });
  window.addEventListener('pagehide', saveNow);
  window.addEventListener('hashchange', async () => {
    if (isLink(location.hash) && await openLink(location.hash, true)) run();
  });
}

async function start() {
  performance.mark('mqlplay:start');
  document.body.dataset.started = 'true'; // boot.js, if later, leaves the first run to us
  await startLanguage();
  restoreSaved();
  runner.onBusy = showBusy;
  showBusy(runner.busy);
  const fragment = isLink(location.hash) ? location.hash : null;
  createEditors();
  placeMarkers = setupCursorRun(scriptView, (pos) => runAtCursor(pos));
  setupLayout($('panes'));
  setupTheme();
  setupSettings({ status, save });
  setupViews({ render, save });
  setupTemplates((db, script) => {
    setEditors(db, script);
    state.tutorial = null;
    state.step = null;
    save();
    run();
  });
  tutorials = setupTutorials(app);
  setupButtons();
  setupPicker($('lang'));
  onLanguage(relabel);
  showSettings();
  watchOtherTabs();
  if (onCopy()) showCopyNote('link'); // a reload of a tab that works on a copy
  if (fragment) await openLink(fragment, true);
  await run(!fragment);
  document.body.dataset.ready = 'true';
  loadEngine(); // this thread's copy, for Format and Share, off the critical path
}

start().catch((e) => {
  renderMessage($('result'), 'error', t('page.startFailed', { message: e && e.message || e }));
});
