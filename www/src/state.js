// The page's state and its autosave. Shared by the boot script (which starts
// the first run before the editors exist) and the main bundle.
// Autosave slots: the saved work (STORE), and copies of their own for tabs
// that opened a link beside it (COPY + an id this tab keeps in
// sessionStorage, so a reload finds its copy and other tabs never see it).
import { DEFAULT_TEMPLATE } from './templates.js';

const STORE = 'mqlplay.state.v1';
const COPY = 'mqlplay.state.v1.copy.';
const TAB_SLOT = 'mqlplay.slot';
const MAX_COPIES = 8; // older copies are removed when a new one starts
export const VIEWS = ['shell', 'tree', 'ejson'];

/** The page's whole state; `now`/`seed` make runs reproducible. */
export const state = {
  db: DEFAULT_TEMPLATE.db,
  script: DEFAULT_TEMPLATE.script,
  view: 'shell',
  now: Date.now(),
  liveNow: true, // take the current time at each run; off once a link or the user pins it
  seed: 0,
  tz: '', // the time zone of local-time dates (an Olson name); '' is UTC
  tutorial: null,
  step: null,
  edited: false, // typed by the user since the last link or template: a link asks before replacing it
};

let restored = false;
let slot = null; // null: the saved work; else this tab's copy

const keyOf = (id) => (id ? COPY + id : STORE);

function tabSlot() {
  try { return sessionStorage.getItem(TAB_SLOT); } catch { return null; }
}

function setTabSlot(id) {
  try {
    if (id) sessionStorage.setItem(TAB_SLOT, id);
    else sessionStorage.removeItem(TAB_SLOT);
  } catch { /* no session storage: the copy lasts until the tab reloads */ }
}

function read(key) {
  try {
    const saved = JSON.parse(localStorage.getItem(key));
    return saved && typeof saved === 'object' ? saved : null;
  } catch {
    return null;
  }
}

/** Load the autosaved state once (later calls do nothing): this tab's copy, if it has one. */
export function restoreSaved() {
  if (restored) return;
  restored = true;
  slot = tabSlot();
  let saved = slot ? read(keyOf(slot)) : null;
  if (slot && !saved) {
    slot = null; // the copy was removed: back to the saved work
    setTabSlot(null);
  }
  saved ??= read(STORE);
  if (!saved) return;
  if (typeof saved.db === 'string') state.db = saved.db;
  if (typeof saved.script === 'string') state.script = saved.script;
  if (VIEWS.includes(saved.view)) state.view = saved.view;
  if (Number.isSafeInteger(saved.now)) state.now = saved.now;
  if (typeof saved.liveNow === 'boolean') state.liveNow = saved.liveNow;
  if (Number.isSafeInteger(saved.seed) && saved.seed >= 0) state.seed = saved.seed;
  if (typeof saved.tz === 'string') state.tz = saved.tz;
  if (typeof saved.tutorial === 'string' state.tutorial = saved.tutorial;
  if (Number.isSafeInteger(saved.step)) state.step = saved.step;
  if (typeof saved.edited === 'boolean') state.edited = saved.edited;
}

/** Save now; false when the browser refuses (quota). */
export function saveState() {
  try {
    localStorage.setItem(keyOf(slot), JSON.stringify({ ...state, savedAt: Date.now() }));
    return true;
  } catch {
    return false;
  }
}

/** Does this tab work on a copy of its own (not the saved work)? */
export function onCopy() {
  return slot !== null;
}

/** The autosave key this tab writes (a `storage` event on it came from another tab). */
export function slotKey() {
  return keyOf(slot);
}

/**
 * From now on this tab saves to a copy of its own; the saved work (and any
 * other tab's copy) is left as it is. The oldest copies beyond MAX_COPIES go.
 */
export function useCopy() {
  slot = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  setTabSlot(slot);
  try {
    const copies = [];
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (key?.startsWith(COPY)) copies.push([read(key)?.savedAt ?? 0, key]);
    }
    copies.sort((a, b) => b[0] - a[0]);
    for (const [, key] of copies.slice(MAX_COPIES - 1)) localStorage.removeItem(key);
  } catch { /* storage unreadable: nothing to tidy */ }
}

/** Make this tab's copy the saved work (the copy's slot is removed). */
export function adoptCopy() {
  const old = slot;
  slot = null;
  setTabSlot(null);
  const ok = saveState();
  if (ok && old) {
    try { localStorage.removeItem(keyOf(old)); } catch { /* kept: harmless */ }
  }
  return ok;
}

/** What a run needs from the state. */
export function runJob() {
  return { db: state.db, script: state.script, now: state.now, seed: state.seed, tz: state.tz };
}

/** A share-link fragment (`#v1…`; other versions are reported), not an in-page anchor. */
export function isLink(hash) {
  return /^#v\d/.test(hash);
}
