// Step-through tutorials: a Tutorials menu, a step panel (sticky header with
// the title, "Step n of N", Prev and Next; the step's text, hints, solution)
// and the step's verdict above the result pane after each run.
// Tutorials are data (www/tutorials/*.json, listed in index.json): all their
// prose lives there. The engine judges each run (wasm `run_page` with the step's
// check: the verdict on that very run) and answers with feedback keys and
// parameters, which LABELS below turns into sentences.
//
// A walkthrough step loads its script; an exercise step loads a starter. Nothing
// runs on Next: the learner runs, and only runs the learner starts are judged.
//
// The page (src/main.js) hands over its `app` object: `state` (this module owns
// state.tutorial, the id, and state.step, 1-based, through setTutorial), setEditors,
// showNotice, run, and `events` ('run' after every run, 'state' when a link
// replaced the editors). The page asks checkFor() for the open step's check
// before each run.
import { renderMarkdown, renderInline } from './markdown.js';
import { raw, fill as fillIn, language, onLanguage, engineMessage } from '../src/i18n.js';
import { menuItems, closeMenu, wireMenu } from '../src/menu.js';

// Every string of the panel comes from the page's catalogue (../i18n/, keys
// `tutorial.*`). `{name}` is a parameter; `{n|one|other}` picks a word by the number n.
const NAMES = ['menu', 'menuTitle', 'menuFailed', 'progress', 'progressTitle', 'stepOf', 'prev', 'next', 'close',
  'navGroup', 'exercise', 'walkthrough', 'basedOn', 'by', 'hint', 'hintOf', 'showSolution', 'solutionShown',
  'resetStep', 'resetStepTitle', 'allSteps', 'resetProgress', 'doneMark', 'doneWithSolution', 'runToCheck',
  'notRunYet', 'writeAndRun', 'passWalkthrough', 'passExercise', 'passLast', 'passNext', 'fail', 'details',
  'broken', 'none', 'theValue'];
const AT = ['collectionPosition', 'statementPosition', 'position', 'statement', 'collection'];
const FEEDBACK = ['runError', 'runErrorAt', 'noError', 'otherError', 'noResult', 'resultsCount', 'resultCount',
  'resultCountAtLeast', 'notList', 'value', 'valueTyped', 'valueLabelled', 'missing', 'extra', 'fieldOrder', 'size',
  'sizeLabelled', 'notArray', 'absent', 'present', 'every', 'everyMissing', 'everyAbsent', 'ids', 'collectionCount',
  'differs'];

/** An object whose `name` reads the catalogue's `prefix.name` in the current language. */
function messages(prefix, names) {
  const o = {};
  for (const n of names) Object.defineProperty(o, n, { get: () => raw(`${prefix}.${n}`), enumerable: true });
  return o;
}

export const LABELS = messages('tutorial', NAMES);
LABELS.at = messages('tutorial.at', AT);
LABELS.feedback = messages('tutorial.feedback', FEEDBACK);

/** Fill `{name}` and `{name|one|other}` from params. */
export function fill(template, params) {
  return fillIn(template, params, LABELS.none);
}

const capital = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);

/**
 * One feedback remark `{key, ...params}` as a sentence. `labels`: the step's
 * translations of its check's labels (English text → the reader's language).
 */
export function sentence(f, labels = null) {
  const F = LABELS.feedback;
  const p = { ...f };
  let key = f.key;
  const labelled = typeof p.label === 'string';
  if (p.field === '') p.field = LABELS.theValue;
  if (labelled) {
    if (typeof labels?.[p.label] === 'string') p.label = labels[p.label];
    p.field = p.label;
    if (key === 'value' || key === 'size') key = key === 'value' ? 'valueLabelled' : 'sizeLabelled';
  } else if (key === 'value' && p.expectedType) key = 'valueTyped';
  if (key === 'runError' && p.line) key = 'runErrorAt';
  if (p.text) p.message = engineMessage(p);
  if (key === 'resultCount' && p.atLeast) key = 'resultCountAtLeast';
  const template = F[key] ?? F.differs;
  let prefix = '';
  const perDoc = !['every', 'everyMissing', 'everyAbsent', 'collectionCount', 'resultCount', 'resultsCount', 'ids'].includes(f.key);
  if (!labelled && perDoc) {
    const A = LABELS.at;
    if (p.collection && p.position) prefix = fill(A.collectionPosition, p);
    else if (p.statement && p.position) prefix = fill(A.statementPosition, p);
    else if (p.position) prefix = fill(A.position, p);
    else if (p.statement) prefix = fill(A.statement, p);
    else if (p.collection) prefix = fill(A.collection, p);
  }
  const body = fill(template, p);
  return prefix ? prefix + body : capital(body);
}

const PROGRESS = 'mqlplay.tutorials.v2';
const BASE = new URL('tutorials/', document.baseURI);

const text = (v) => (Array.isArray(v) ? v.join('\n') : String(v ?? ''));

let app = null;
let index = null; // [{id, file, title, summary}]
const loaded = new Map(); // id -> tutorial (English)
const localized = new Map(); // `${lang}:${id}` -> tutorial with its overlay
let lastVerdict = null; // the verdict shown, redrawn after a change of language
let current = null; // the open tutorial
let els = null;
let hintsShown = 0; // hints revealed on the open step

// ---- data ------------------------------------------------------------------

async function fetchJson(name) {
  const r = await fetch(new URL(name, BASE));
  if (!r.ok) throw new Error(`${name}: HTTP ${r.status}`);
  return r.json();
}

async function loadIndex() {
  if (!index) index = (await fetchJson('index.json')).tutorials;
  return index;
}

async function loadEnglish(id) {
  if (loaded.has(id)) return loaded.get(id);
  const entry = (await loadIndex()).find((t) => t.id === id);
  if (!entry) return null;
  const t = await fetchJson(entry.file);
  loaded.set(id, t);
  return t;
}

/** The tutorial in the page's language: its overlay (i18n/<lang>/<id>.json) over the English file. */
async function loadTutorial(id) {
  const t = await loadEnglish(id);
  const lang = language();
  if (!t || lang === 'en') return t;
  const key = `${lang}:${id}`;
  if (!localized.has(key)) {
    let overlay = null;
    try {
      overlay = await fetchJson(`i18n/${lang}/${encodeURIComponent(id)}.json`);
    } catch { /* no translation yet: English */ }
    localized.set(key, overlay && typeof overlay === 'object' ? overlaid(t, overlay) : t);
  }
  return localized.get(key);
}

const str = (v) => typeof v === 'string';
const prose = (v) => str(v) || (Array.isArray(v) && v.every(str));
/** A script's code without its `//` comments: a translation may change only the comments. */
const code = (v) => text(v).split('\n').map((l) => l.replace(/\/\/.*$/, '').trimEnd()).join('\n').trim();

/**
 * The English tutorial with the overlay's prose where it has some: title, summary,
 * step titles and texts, hints (when there are as many), check labels, scripts with
 * translated comments (the same code only). Data, solutions and checks stay the English file's.
 */
function overlaid(t, o) {
  const steps = t.steps.map((s, i) => {
    const os = Array.isArray(o.steps) ? o.steps[i] : null;
    if (!os || typeof os !== 'object') return s;
    const hints = Array.isArray(os.hints) && os.hints.length === (s.hints?.length ?? 0) && os.hints.every(prose) ? os.hints : s.hints;
    const labels = os.labels && typeof os.labels === 'object' ? os.labels : null;
    return {
      ...s,
      title: str(os.title) ? os.title : s.title,
      text: prose(os.text) ? os.text : s.text,
      hints,
      labels,
      script: prose(os.script) && code(os.script) === code(s.script) ? os.script : s.script,
    };
  });
  return { ...t, title: str(o.title) ? o.title : t.title, summary: str(o.summary) ? o.summary : t.summary, steps };
}

// ---- progress (localStorage) ---------------------------------------------------
// Per tutorial: the open step, the steps solved on the learner's own, those
// solved after "Show solution", and those whose solution was shown.

function readProgress() {
  try {
    const p = JSON.parse(localStorage.getItem(PROGRESS));
    return p && typeof p === 'object' ? p : {};
  } catch {
    return {};
  }
}

const ints = (a) => (Array.isArray(a) ? a.filter(Number.isSafeInteger) : []);

function progressOf(id) {
  const p = readProgress()[id];
  return {
    step: Number.isSafeInteger(p?.step) ? p.step : 1,
    solved: ints(p?.solved),
    withSolution: ints(p?.withSolution),
    shown: ints(p?.shown),
  };
}

function writeProgress(id, update) {
  const all = readProgress();
  const p = progressOf(id);
  update(p);
  const set = (a) => [...new Set(a)].sort((x, y) => x - y);
  all[id] = { step: p.step, solved: set(p.solved), withSolution: set(p.withSolution), shown: set(p.shown) };
  try { localStorage.setItem(PROGRESS, JSON.stringify(all)); } catch { /* storage disabled */ }
}

function forgetProgress(id) {
  const all = readProgress();
  delete all[id];
  try { localStorage.setItem(PROGRESS, JSON.stringify(all)); } catch { /* storage disabled */ }
}

const doneCount = (p) => new Set([...p.solved, ...p.withSolution]).size;

// ---- DOM ---------------------------------------------------------------------

function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('aria-') || k.startsWith('data-') || k === 'role') e.setAttribute(k, v);
    else e[k] = v;
  }
  e.append(...children);
  return e;
}

function buildMenu() {
  const button = el('button', {
    id: 'tutorials', type: 'button', 'aria-haspopup': 'menu', 'aria-expanded': 'false',
    'aria-controls': 'tutorials-menu', title: LABELS.menuTitle, 'data-i18n-attr': 'title=tutorial.menuTitle',
  }, el('span', { text: LABELS.menu, 'data-i18n': 'tutorial.menu' }), ' ', el('span', { 'aria-hidden': 'true', text: '▾' }));
  const menu = el('ul', { id: 'tutorials-menu', class: 'menu', role: 'menu', 'aria-label': LABELS.menu, 'data-i18n-attr': 'aria-label=tutorial.menu', hidden: true });
  const wrap = el('div', { class: 'menu-wrap' }, button, menu);
  const anchor = document.getElementById('templates')?.closest('.menu-wrap');
  if (anchor) anchor.after(wrap);
  else document.querySelector('.actions')?.append(wrap);

  const close = (refocus = true) => closeMenu(button, menu, refocus);
  const open = async () => {
    let list;
    try {
      list = await loadIndex();
    } catch (e) {
      menu.replaceChildren(el('li', { role: 'none', class: 'muted', text: fill(LABELS.menuFailed, { message: e.message }) }));
      menu.hidden = false;
      return;
    }
    menu.replaceChildren();
    // Titles and summaries in the page's language (the overlays), English without one.
    const fulls = await Promise.all(list.map((t) => loadTutorial(t.id).catch(() => null)));
    for (const [i, t] of list.entries()) {
      const p = progressOf(t.id);
      const title = el('span', { class: 'tut-menu-title' });
      renderInline(title, fulls[i]?.title ?? t.title);
      // The total needs the tutorial file; the menu shows it once it is known.
      const count = el('span', { class: 'tut-menu-progress muted' });
      loadTutorial(t.id).then((full) => {
        if (!full) return;
        const params = { done: doneCount(p), total: full.steps.length };
        count.textContent = fill(LABELS.progress, params);
        count.title = fill(LABELS.progressTitle, params);
      }).catch(() => {});
      const item = el('button', { type: 'button', role: 'menuitem', 'data-tutorial': t.id, title: fulls[i]?.summary ?? t.summary }, title, count);
      item.addEventListener('click', async () => {
        close();
        await openTutorial(t.id);
      });
      menu.append(el('li', { role: 'none' }, item));
    }
    menu.hidden = false;
    button.setAttribute('aria-expanded', 'true');
    menuItems(menu)[0]?.focus();
  };
  wireMenu(button, menu, open, close);
}

function buildPanel() {
  const title = el('h2', { id: 'tutorial-title', class: 'tut-title' });
  const pos = el('span', { id: 'tutorial-pos', class: 'tut-pos muted' });
  const prev = el('button', { id: 'tutorial-prev', type: 'button', text: LABELS.prev, 'data-i18n': 'tutorial.prev' });
  const next = el('button', { id: 'tutorial-next', type: 'button', text: LABELS.next, 'data-i18n': 'tutorial.next' });
  const closeB = el('button', {
    id: 'tutorial-close', type: 'button', class: 'icon', 'aria-label': LABELS.close, title: LABELS.close, text: '×',
    'data-i18n-attr': 'aria-label=tutorial.close title=tutorial.close',
  });
  const head = el('div', { class: 'tut-head' }, title, pos,
    el('div', { class: 'tut-nav', role: 'group', 'aria-label': LABELS.navGroup, 'data-i18n-attr': 'aria-label=tutorial.navGroup' }, prev, next, closeB));
  const sources = el('p', { id: 'tutorial-sources', class: 'tut-sources muted', hidden: true });
  const kind = el('span', { id: 'tutorial-kind', class: 'tut-kind' });
  const stepTitle = el('h3', { id: 'tutorial-step-title', class: 'tut-step-title' });
  const body = el('div', { id: 'tutorial-text', class: 'tut-text' });
  const hints = el('ol', { id: 'tutorial-hints', class: 'tut-hints', hidden: true });
  const hintB = el('button', { id: 'tutorial-hint', type: 'button', text: LABELS.hint });
  const solutionB = el('button', { id: 'tutorial-solution', type: 'button', text: LABELS.showSolution, 'data-i18n': 'tutorial.showSolution' });
  const reset = el('button', {
    id: 'tutorial-reset', type: 'button', text: LABELS.resetStep, title: LABELS.resetStepTitle,
    'data-i18n': 'tutorial.resetStep', 'data-i18n-attr': 'title=tutorial.resetStepTitle',
  });
  const actions = el('div', { class: 'tut-actions' }, hintB, solutionB, reset);
  const steps = el('ol', { id: 'tutorial-steps', class: 'tut-steps' });
  const forget = el('button', { id: 'tutorial-forget', type: 'button', class: 'linkish', text: LABELS.resetProgress, 'data-i18n': 'tutorial.resetProgress' });
  const stepsBox = el('details', { class: 'tut-steps-box' }, el('summary', { text: LABELS.allSteps, 'data-i18n': 'tutorial.allSteps' }), steps, forget);
  const panel = el('section', { id: 'tutorial', class: 'tutorial', 'aria-labelledby': 'tutorial-title', hidden: true },
    head, el('div', { class: 'tut-body' }, sources, el('div', { class: 'tut-step-head' }, kind, stepTitle), body, hints, actions, stepsBox));
  document.getElementById('panes').before(panel);
  // The verdict sits above the result it judges.
  const check = el('div', { id: 'tutorial-check', class: 'tut-check', role: 'status', 'aria-live': 'polite', hidden: true });
  const result = document.getElementById('result');
  result.before(check);
  prev.addEventListener('click', () => go(-1));
  next.addEventListener('click', () => go(1));
  reset.addEventListener('click', () => resetStep());
  closeB.addEventListener('click', () => closeTutorial());
  hintB.addEventListener('click', () => revealHint());
  solutionB.addEventListener('click', () => showSolution());
  forget.addEventListener('click', () => {
    if (!current) return;
    forgetProgress(current.id);
    writeProgress(current.id, (p) => { p.step = app.state.step; });
    render();
  });
  els = { panel, title, pos, prev, next, reset, steps, stepsBox, sources, kind, stepTitle, body, hints, hintB, solutionB, check };
}

// ---- behaviour -----------------------------------------------------------------

function stepOf(t, n) {
  return t?.steps?.[n - 1] ?? null;
}

const isExercise = (step) => step?.kind === 'exercise';

/** Open a tutorial at its remembered step, loading that step into the editors. */
async function openTutorial(id) {
  let t;
  try {
    t = await loadTutorial(id);
  } catch {
    return; // the menu already loaded the index: only a vanished file gets here
  }
  if (!t) return;
  const n = Math.min(Math.max(progressOf(id).step, 1), t.steps.length);
  showStep(t, n, true);
}

/**
 * Show step `n` of `t`. `load` puts its database and script (or starter) into
 * the editors; nothing runs until the learner presses Run.
 */
function showStep(t, n, load) {
  const step = stepOf(t, n);
  if (!step) return;
  current = t;
  hintsShown = 0;
  app.setTutorial(t.id, n);
  writeProgress(t.id, (p) => { p.step = n; });
  render();
  showCheck(null);
  if (load) {
    app.setEditors(text(step.db), text(step.script));
    app.showNotice(LABELS.notRunYet);
  }
  els.panel.scrollTop = 0;
  // On a phone the page scrolls: bring the new step's text into view.
  if (els.panel.getBoundingClientRect().top < 0) els.panel.scrollIntoView({ block: 'start' });
}

function go(delta) {
  if (!current) return;
  const n = app.state.step + delta;
  if (n >= 1 && n <= current.steps.length) showStep(current, n, true);
}

function resetStep() {
  if (current) showStep(current, app.state.step, true);
}

function closeTutorial() {
  current = null;
  if (app.state.tutorial) app.setTutorial(null, null);
  els.panel.hidden = true;
  els.check.hidden = true;
  document.body.classList.remove('tut-open');
}

function revealHint() {
  const step = current && stepOf(current, app.state.step);
  if (!step?.hints?.length) return;
  hintsShown = Math.min(hintsShown + 1, step.hints.length);
  renderHints(step);
}

function renderHints(step) {
  const list = step.hints ?? [];
  els.hints.replaceChildren();
  list.slice(0, hintsShown).forEach((h) => {
    const li = el('li');
    renderMarkdown(li, h);
    els.hints.append(li);
  });
  els.hints.hidden = hintsShown === 0;
  els.hintB.hidden = list.length === 0;
  els.hintB.disabled = hintsShown >= list.length;
  els.hintB.textContent = hintsShown > 0 && hintsShown < list.length
    ? fill(LABELS.hintOf, { n: hintsShown + 1, total: list.length })
    : LABELS.hint;
}

function showSolution() {
  const n = app.state.step;
  const step = current && stepOf(current, n);
  if (!step?.solution) return;
  writeProgress(current.id, (p) => { p.shown.push(n); });
  app.setEditors(text(step.db), text(step.solution));
  app.showNotice(LABELS.notRunYet);
  showCheck({ notice: LABELS.solutionShown });
}

function renderSources(t, n) {
  const box = els.sources;
  box.replaceChildren();
  const list = n === 1 && Array.isArray(t.sources) ? t.sources : [];
  box.hidden = list.length === 0;
  if (!list.length) return;
  box.append(`${LABELS.basedOn} `);
  list.forEach((s, i) => {
    if (i) box.append(' · ');
    // Only web addresses become links.
    const url = /^https:\/\//.test(s.url) ? s.url : null;
    const a = url
      ? el('a', { href: url, target: '_blank', rel: 'noopener noreferrer', lang: s.language, text: s.title })
      : el('span', { lang: s.language, text: s.title });
    box.append(a);
    if (s.author) box.append(` (${fill(LABELS.by, { author: s.author })})`);
  });
}

function render() {
  const t = current;
  const n = app.state.step;
  const step = stepOf(t, n);
  if (!step) {
    els.panel.hidden = true;
    return;
  }
  const p = progressOf(t.id);
  renderInline(els.title, t.title);
  els.pos.textContent = fill(LABELS.stepOf, { n, total: t.steps.length });
  els.prev.disabled = n <= 1;
  els.next.disabled = n >= t.steps.length;
  renderSources(t, n);
  const exercise = isExercise(step);
  els.kind.textContent = exercise ? LABELS.exercise : LABELS.walkthrough;
  els.kind.className = `tut-kind ${exercise ? 'is-exercise' : 'is-walkthrough'}`;
  renderInline(els.stepTitle, step.title);
  renderMarkdown(els.body, step.text);
  renderHints(step);
  els.solutionB.hidden = !step.solution;
  els.steps.replaceChildren();
  const solved = new Set(p.solved);
  const helped = new Set(p.withSolution);
  t.steps.forEach((s, i) => {
    const b = el('button', { type: 'button', class: 'linkish', 'data-step': String(i + 1) });
    renderInline(b, s.title);
    if (i + 1 === n) b.setAttribute('aria-current', 'step');
    b.addEventListener('click', () => { els.stepsBox.open = false; showStep(t, i + 1, true); });
    const state = solved.has(i + 1) ? LABELS.doneMark : helped.has(i + 1) ? LABELS.doneWithSolution : '';
    const mark = el('span', { class: `tut-done${helped.has(i + 1) && !solved.has(i + 1) ? ' with-solution' : ''}`, 'data-done': state ? 'true' : 'false', text: state ? ` ✓ ${state}` : '' });
    els.steps.append(el('li', { class: isExercise(s) ? 'is-exercise' : '' }, b, mark));
  });
  els.panel.hidden = false;
  els.check.hidden = false;
  document.body.classList.add('tut-open');
}

/** The verdict: null (not run yet), {notice}, {ok, feedback, differences} or {error}. */
function showCheck(verdict) {
  lastVerdict = verdict;
  const box = els.check;
  box.replaceChildren();
  box.className = 'tut-check';
  delete box.dataset.ok;
  const step = current && stepOf(current, app.state.step);
  if (!verdict || verdict.notice) {
    box.append(el('span', { class: 'muted', text: verdict?.notice ?? (isExercise(step) ? LABELS.writeAndRun : LABELS.runToCheck) }));
    return;
  }
  if (verdict.error) {
    box.classList.add('bad');
    box.dataset.ok = 'false';
    box.append(el('strong', { text: fill(LABELS.broken, { error: verdict.error }) }));
    return;
  }
  if (verdict.ok) {
    box.classList.add('good');
    box.dataset.ok = 'true';
    const last = app.state.step >= (current?.steps.length ?? 0);
    box.append(el('span', { class: 'tut-tick', 'aria-hidden': 'true', text: '✓ ' }),
      el('strong', { text: isExercise(step) ? LABELS.passExercise : LABELS.passWalkthrough }),
      ` ${last ? LABELS.passLast : LABELS.passNext}`);
    return;
  }
  box.classList.add('bad');
  box.dataset.ok = 'false';
  box.append(el('span', { class: 'tut-cross', 'aria-hidden': 'true', text: '✗ ' }), el('strong', { text: LABELS.fail }));
  const list = el('ul', { class: 'tut-feedback' });
  for (const f of verdict.feedback ?? []) list.append(el('li', { 'data-key': f.key, text: sentence(f, step?.labels) }));
  box.append(list);
  if (verdict.differences?.length) {
    const raw = el('ul', { class: 'tut-diffs' });
    for (const d of verdict.differences) raw.append(el('li', { text: d }));
    box.append(el('details', { class: 'tut-details' }, el('summary', { text: LABELS.details }), raw));
  }
}

// ---- the page's hooks ------------------------------------------------------------

/** After a change of language: the open tutorial in the new one (the panel's fixed labels follow by themselves). */
async function relabel() {
  if (!current) return;
  const verdict = lastVerdict;
  let t = current;
  try {
    t = (await loadTutorial(current.id)) ?? current;
  } catch { /* keep the one shown */ }
  if (!current || t.id !== current.id) return;
  current = t;
  render();
  showCheck(verdict);
}

/**
 * The open step's check as JSON text for the worker, or null outside a tutorial.
 * Loads the tutorial first when a link or the autosave named one.
 */
async function checkFor() {
  if (!app.state.tutorial) return null;
  if (!current || current.id !== app.state.tutorial) await sync();
  const step = current && stepOf(current, app.state.step);
  return step ? JSON.stringify(step.check) : null;
}

/** After a run: show the verdict the worker computed, remember a passed step. */
function afterRun(res) {
  if (!app.state.tutorial) {
    if (current) closeTutorial(); // a template replaced the tutorial
    return;
  }
  // The page's own run at start-up is not the learner's: it is not judged.
  if (!res || res.stopped || res.first || !current) return;
  if (!res.check) return;
  showCheck(res.check);
  const n = app.state.step;
  const step = stepOf(current, n);
  if (res.check.ok) {
    writeProgress(current.id, (p) => {
      if (p.shown.includes(n)) p.withSolution.push(n);
      else p.solved.push(n);
    });
    render();
  }
  // Bring the result the step talks about into view, once the page has drawn it.
  if (step?.focus) {
    requestAnimationFrame(() => {
      const target = document.querySelectorAll('#result > .result')[step.focus - 1];
      target?.scrollIntoView({ block: 'start' });
    });
  }
}

/**
 * Follow state.tutorial/state.step after the page set them (a share link, the
 * autosave): show that step without touching the editors.
 */
async function sync() {
  const id = app.state.tutorial;
  if (!id) {
    if (current) closeTutorial();
    return;
  }
  let t = null;
  try {
    t = await loadTutorial(id);
  } catch { /* offline or missing: the editors still hold the link's content */ }
  const n = Number(app.state.step) || 1;
  if (!t || !stepOf(t, n)) {
    current = null;
    els.panel.hidden = true;
    els.check.hidden = true;
    return;
  }
  current = t;
  hintsShown = 0;
  writeProgress(t.id, (p) => { p.step = n; });
  render();
  showCheck(null);
}

export function setupTutorials(page) {
  app = page;
  buildMenu();
  buildPanel();
  app.events.addEventListener('run', (e) => afterRun(e.detail));
  app.events.addEventListener('state', () => { sync(); });
  if (app.state.tutorial) sync(); // restored from the autosave
  onLanguage(relabel);
  return { checkFor, open: openTutorial };
}
