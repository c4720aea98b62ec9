// Step-through tutorials: a Tutorials menu, a step panel (text, Prev/Next,
// Reset this step, the step list) and the step's check after each run.
// Tutorials are data (www/tutorials/*.json, listed in index.json); the engine
// evaluates each step's `check` (wasm `check_step`, run in the worker next to
// the run itself), so the page only displays the verdict.
//
// The page (src/main.js) hands over its `app` object: `state` (this module owns
// state.tutorial, the id, and state.step, 1-based, through setTutorial), setEditors,
// run, and `events` ('run' after every run, 'state' when a link replaced the
// editors). The page asks checkFor() for the open step's check before each run.
import { renderMarkdown, renderInline } from './markdown.js';

const PROGRESS = 'mqlplay.tutorials.v1';
const BASE = new URL('tutorials/', document.baseURI);

const text = (v) => (Array.isArray(v) ? v.join('\n') : String(v ?? ''));

let app = null;
let index = null; // [{id, file, title, summary}]
const loaded = new Map(); // id -> tutorial
let current = null; // the open tutorial
let els = null;

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

async function loadTutorial(id) {
  if (loaded.has(id)) return loaded.get(id);
  const entry = (await loadIndex()).find((t) => t.id === id);
  if (!entry) return null;
  const t = await fetchJson(entry.file);
  loaded.set(id, t);
  return t;
}

// ---- progress (localStorage) ---------------------------------------------------

function readProgress() {
  try {
    const p = JSON.parse(localStorage.getItem(PROGRESS));
    return p && typeof p === 'object' ? p : {};
  } catch {
    return {};
  }
}

function progressOf(id) {
  const p = readProgress()[id];
  return {
    step: Number.isSafeInteger(p?.step) ? p.step : 1,
    passed: Array.isArray(p?.passed) ? p.passed.filter(Number.isSafeInteger) : [],
  };
}

function writeProgress(id, update) {
  const all = readProgress();
  const p = progressOf(id);
  update(p);
  all[id] = { step: p.step, passed: [...new Set(p.passed)].sort((a, b) => a - b) };
  try { localStorage.setItem(PROGRESS, JSON.stringify(all)); } catch { /* storage disabled */ }
}

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
    'aria-controls': 'tutorials-menu', title: 'Step-through tutorials',
  }, 'Tutorials ', el('span', { 'aria-hidden': 'true', text: '▾' }));
  const menu = el('ul', { id: 'tutorials-menu', class: 'menu', role: 'menu', 'aria-label': 'Tutorials', hidden: true });
  const wrap = el('div', { class: 'menu-wrap' }, button, menu);
  const anchor = document.getElementById('templates')?.closest('.menu-wrap');
  if (anchor) anchor.after(wrap);
  else document.querySelector('.actions')?.append(wrap);

  const items = () => [...menu.querySelectorAll('[role=menuitem]')];
  const close = (refocus = true) => {
    if (menu.hidden) return;
    menu.hidden = true;
    button.setAttribute('aria-expanded', 'false');
    if (refocus) button.focus();
  };
  const open = async () => {
    let list;
    try {
      list = await loadIndex();
    } catch (e) {
      menu.replaceChildren(el('li', { role: 'none', class: 'muted', text: `The tutorials could not be loaded: ${e.message}` }));
      menu.hidden = false;
      return;
    }
    menu.replaceChildren();
    for (const t of list) {
      const p = progressOf(t.id);
      const title = el('span', { class: 'tut-menu-title' });
      renderInline(title, t.title);
      const done = p.passed.length ? ` · ${p.passed.length} done` : '';
      const item = el('button', { type: 'button', role: 'menuitem', 'data-tutorial': t.id, title: t.summary },
        title, el('span', { class: 'tut-menu-progress muted', text: done }));
      item.addEventListener('click', async () => {
        close();
        await openTutorial(t.id);
      });
      menu.append(el('li', { role: 'none' }, item));
    }
    menu.hidden = false;
    button.setAttribute('aria-expanded', 'true');
    items()[0]?.focus();
  };
  button.addEventListener('click', () => (menu.hidden ? open() : close()));
  menu.addEventListener('keydown', (e) => {
    const list = items();
    const i = list.indexOf(document.activeElement);
    if (e.key === 'ArrowDown') list[(i + 1) % list.length].focus();
    else if (e.key === 'ArrowUp') list[(i - 1 + list.length) % list.length].focus();
    else if (e.key === 'Home') list[0].focus();
    else if (e.key === 'End') list[list.length - 1].focus();
    else if (e.key === 'Escape') close();
    else if (e.key === 'Tab') close(false);
    else return;
    e.preventDefault();
  });
  document.addEventListener('pointerdown', (e) => {
    if (!menu.hidden && !menu.contains(e.target) && !button.contains(e.target)) close(false);
  });
}

function buildPanel() {
  const title = el('h2', { id: 'tutorial-title', class: 'tut-title' });
  const pos = el('span', { id: 'tutorial-pos', class: 'tut-pos muted' });
  const prev = el('button', { id: 'tutorial-prev', type: 'button', text: '← Prev' });
  const next = el('button', { id: 'tutorial-next', type: 'button', text: 'Next →' });
  const reset = el('button', { id: 'tutorial-reset', type: 'button', text: 'Reset this step', title: "Load this step's database and script again" });
  const closeB = el('button', { id: 'tutorial-close', type: 'button', class: 'icon', 'aria-label': 'Close the tutorial', title: 'Close the tutorial', text: '×' });
  const steps = el('ol', { id: 'tutorial-steps', class: 'tut-steps' });
  const stepsBox = el('details', { class: 'tut-steps-box' }, el('summary', { text: 'All steps' }), steps);
  const stepTitle = el('h3', { id: 'tutorial-step-title', class: 'tut-step-title' });
  const body = el('div', { id: 'tutorial-text', class: 'tut-text' });
  const check = el('div', { id: 'tutorial-check', class: 'tut-check', role: 'status', 'aria-live': 'polite' });
  const panel = el('section', { id: 'tutorial', class: 'tutorial', 'aria-labelledby': 'tutorial-title', hidden: true },
    el('div', { class: 'tut-head' }, title, pos,
      el('div', { class: 'tut-nav', role: 'group', 'aria-label': 'Tutorial steps' }, prev, next, reset, closeB)),
    stepsBox, stepTitle, body, check);
  const panes = document.getElementById('panes');
  panes.before(panel);
  prev.addEventListener('click', () => go(-1));
  next.addEventListener('click', () => go(1));
  reset.addEventListener('click', () => resetStep());
  closeB.addEventListener('click', () => closeTutorial());
  els = { panel, title, pos, prev, next, reset, steps, stepsBox, stepTitle, body, check };
}

// ---- behaviour -----------------------------------------------------------------

function stepOf(t, n) {
  return t?.steps?.[n - 1] ?? null;
}

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
 * Show step `n` of `t`. `load` puts its database and script into the editors and
 * runs them, so the result pane and the verdict belong to the step shown.
 */
function showStep(t, n, load) {
  const step = stepOf(t, n);
  if (!step) return;
  current = t;
  app.setTutorial(t.id, n);
  writeProgress(t.id, (p) => { p.step = n; });
  render();
  showCheck(null);
  if (load) {
    app.setEditors(text(step.db), text(step.script));
    app.run();
  }
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
}

function render() {
  const t = current;
  const n = app.state.step;
  const step = stepOf(t, n);
  if (!step) {
    els.panel.hidden = true;
    return;
  }
  const passed = new Set(progressOf(t.id).passed);
  renderInline(els.title, t.title);
  els.pos.textContent = `Step ${n} of ${t.steps.length}`;
  els.prev.disabled = n <= 1;
  els.next.disabled = n >= t.steps.length;
  renderInline(els.stepTitle, step.title);
  renderMarkdown(els.body, step.text);
  els.steps.replaceChildren();
  t.steps.forEach((s, i) => {
    const b = el('button', { type: 'button', class: 'linkish', 'data-step': String(i + 1) });
    renderInline(b, s.title);
    if (i + 1 === n) b.setAttribute('aria-current', 'step');
    b.addEventListener('click', () => { els.stepsBox.open = false; showStep(t, i + 1, true); });
    const mark = el('span', { class: 'tut-done', 'aria-label': passed.has(i + 1) ? 'done' : '', text: passed.has(i + 1) ? ' ✓' : '' });
    els.steps.append(el('li', {}, b, mark));
  });
  els.panel.hidden = false;
}

/** The verdict: null (not run yet), {ok, differences} or {error}. */
function showCheck(verdict) {
  const box = els.check;
  box.replaceChildren();
  box.className = 'tut-check';
  delete box.dataset.ok;
  if (!verdict) {
    box.append(el('span', { class: 'muted', text: 'Run the step to check its result.' }));
    return;
  }
  // The panel scrolls when a step's text is long: keep the verdict in sight.
  requestAnimationFrame(() => box.scrollIntoView({ block: 'nearest' }));
  if (verdict.error) {
    box.classList.add('bad');
    box.dataset.ok = 'false';
    box.append(el('strong', { text: 'This step’s check is broken: ' }), document.createTextNode(verdict.error));
    return;
  }
  if (verdict.ok) {
    box.classList.add('good');
    box.dataset.ok = 'true';
    const last = app.state.step >= (current?.steps.length ?? 0);
    box.append(el('span', { class: 'tut-tick', 'aria-hidden': 'true', text: '✓ ' }),
      el('strong', { text: last ? 'As expected. That was the last step.' : 'As expected. On to the next step.' }));
    return;
  }
  box.classList.add('bad');
  box.dataset.ok = 'false';
  box.append(el('span', { class: 'tut-cross', 'aria-hidden': 'true', text: '✗ ' }),
    el('strong', { text: 'Not what this step expects:' }));
  const list = el('ul', { class: 'tut-diffs' });
  for (const d of verdict.differences ?? []) list.append(el('li', { text: d }));
  box.append(list);
}

// ---- the page's hooks ------------------------------------------------------------

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

let rerun = false;

/** After a run: show the verdict the worker computed, remember a passed step. */
function afterRun(res) {
  if (!app.state.tutorial) {
    if (current) closeTutorial(); // a template replaced the tutorial
    return;
  }
  if (!res || res.stopped) return;
  if (!res.check) {
    // The page's first run may start (in its boot script) before this module has
    // loaded the step: run once more, this time with the step's check.
    if (!rerun) {
      rerun = true;
      checkFor().then((check) => { if (check) app.run(); });
    }
    return;
  }
  rerun = false;
  if (!current) return;
  showCheck(res.check);
  if (res.check.ok) {
    const n = app.state.step;
    writeProgress(current.id, (p) => { p.passed.push(n); });
    render();
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
    return;
  }
  current = t;
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
  return { checkFor, open: openTutorial };
}
