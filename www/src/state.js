// The page's state and its autosave. Shared by the boot script (which starts
// the first run before the editors exist) and the main bundle.
import { DEFAULT_TEMPLATE } from './templates.js';

const STORE = 'mqlplay.state.v1';
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

/** Load the autosaved state once (later calls do nothing). */
export function restoreSaved() {
  if (restored) return;
  restored = true;
  try {
    const saved = JSON.parse(localStorage.getItem(STORE));
    if (!saved || typeof saved !== 'object') return;
    if (typeof saved.db === 'string') state.db = saved.db;
    if (typeof saved.script === 'string') state.script = saved.script;
    if (VIEWS.includes(saved.view)) state.view = saved.view;
    if (Number.isSafeInteger(saved.now)) state.now = saved.now;
    if (typeof saved.liveNow === 'boolean') state.liveNow = saved.liveNow;
    if (Number.isSafeInteger(saved.seed) && saved.seed >= 0) state.seed = saved.seed;
    if (typeof saved.tz === 'string') state.tz = saved.tz;
    if (typeof saved.tutorial === 'string') state.tutorial = saved.tutorial;
    if (Number.isSafeInteger(saved.step)) state.step = saved.step;
    if (typeof saved.edited === 'boolean') state.edited = saved.edited;
  } catch { /* nothing saved, or unreadable: keep the defaults */ }
}

/** Save now; false when the browser refuses (quota). */
export function saveState() {
  try {
    localStorage.setItem(STORE, JSON.stringify(state));
    return true;
  } catch {
    return false;
  }
}

/** What a run needs from the state. */
export function runJob() {
  return { db: state.db, script: state.script, now: state.now, seed: state.seed, tz: state.tz };
}

/** A share-link fragment (`#v1…`; other versions are reported), not an in-page anchor. */
export function isLink(hash) {
  return /^#v\d/.test(hash);
}
