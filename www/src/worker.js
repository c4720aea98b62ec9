// The engine's thread: runs scripts so the page never freezes. The page may
// terminate this worker at any time (Stop, time limit, a trap) and start a new one.
import init, {
  run_page, run_page_again, result_page, stages_page, export_result, export_collection, set_time_zone,
  collation_data_wanted, load_collation_data, time_zones_wanted, load_time_zones,
  stop_words_wanted, load_stop_words,
} from '../pkg/mqlplay.js';
import { handleAssist } from './assist_worker.js';

// The Database text of the last run: while it is unchanged it does not cross into wasm again.
let lastDb = null;
// The plain run whose long results the engine keeps past their first page (see `page`).
let keptFor = null;

// Runs wait for the engine whichever message arrives first.
let gotModule;
const ready = new Promise((resolve) => { gotModule = resolve; })
  .then(async (module) => {
    await init({ module_or_path: module });
    return module;
  });

self.onmessage = async (event) => {
  const msg = event.data;
  if (msg.type === 'compile' || msg.type === 'init') {
    // The first worker compiles the wasm while it downloads and hands the module to the page.
    gotModule(msg.type === 'init' ? msg.module
      : WebAssembly.compileStreaming(fetch(new URL('../pkg/mqlplay_bg.wasm', import.meta.url))));
    try {
      const module = await ready;
      if (msg.type === 'compile') self.postMessage({ type: 'module', module });
    } catch (e) {
      self.postMessage({ type: 'crash', id: null, message: `the engine did not load: ${e && e.message || e}` });
    }
    return;
  }
  if (msg.type.startsWith('assist-')) {
    try {
      await ready;
      handleAssist(msg);
    } catch (e) {
      self.postMessage({ type: 'assist-crash', message: String(e && e.message || e) });
    }
    return;
  }
  if (msg.type === 'page') {
    // More documents of a long result: JSON text, 'null' once another run replaced them.
    let json = 'null';
    try {
      await ready;
      if (keptFor === msg.runId) json = result_page(msg.index, msg.from, msg.count);
    } catch { /* a trap: the page says the documents are gone */ }
    self.postMessage({ type: 'page', req: msg.req, json });
    return;
  }
  if (msg.type === 'run') {
    try {
      await ready;
      set_time_zone(msg.tz || ''); // local-time dates; the page checked the name
      collation_data_wanted(); // forget what an assist asked for
      time_zones_wanted();
      stop_words_wanted();
      let t0 = performance.now();
      let json = compute(msg);
      // The wasm carries no collation data, time-zone offsets or stop words: a script that
      // needed them ran without; fetch them once (only for such scripts) and run again.
      for (let i = 0; i < 3 && await loadWanted(); i++) {
        t0 = performance.now();
        json = compute(msg);
      }
      lastDb = msg.stages || msg.export ? null : msg.db;
      if (!msg.stages && !msg.export) keptFor = msg.id;
      const ms = performance.now() - t0;
      self.postMessage({ type: 'result', id: msg.id, json, ms });
    } catch (e) {
      // A wasm trap (a panic is `unreachable`) leaves the instance unusable: the page restarts us.
      self.postMessage({
        type: 'crash',
        id: msg.id,
        message: `${e && e.name ? e.name + ': ' : ''}${e && e.message || e}`,
      });
    }
  }
};

// JSON text: one string crosses to the page, which parses it (see engine.js).
// The engine keeps the configuration loaded while its text is unchanged.
// `stages`: the Stages view of one aggregate ({target, off}) instead of a plain run.
// `export`: a result ({index}) or a collection ({name}) written exactly, in `form`.
// A tutorial step's check (../tutorials/) goes with the run: the engine judges this very run.
// The output carries the script's statements (`stmts`) and the verdict (`check`).
function compute(msg) {
  const check = msg.check && !msg.stages && !msg.export ? msg.check : undefined;
  return msg.export ? exported(msg)
    : msg.stages
      ? stages_page(msg.db, msg.script, msg.now, msg.seed, msg.stages.target, Uint32Array.from(msg.stages.off))
      : (msg.db === lastDb && run_page_again(msg.script, msg.now, msg.seed, check))
        || run_page(msg.db, msg.script, msg.now, msg.seed, check);
}

// The collation data (made by the build: `mqlplay collation-data`); false when it cannot
// be had (offline): the run then reports that the collator could not be created.
let collationData = null;
function loadCollationData() {
  collationData ??= fetch(new URL('../pkg/collation.postcard', import.meta.url))
    .then((r) => (r.ok ? r.arrayBuffer() : Promise.reject(new Error(`HTTP ${r.status}`))))
    .then((buf) => { load_collation_data(new Uint8Array(buf)); return true; })
    .catch(() => { collationData = null; return false; });
  return collationData;
}

// The time zones' offsets and display names (copied beside this script by build.mjs);
// false when they cannot be had (offline): the run then fails with a message.
let timeZones = null;
function loadTimeZones() {
  const get = (name, as) => fetch(new URL(name, import.meta.url))
    .then((r) => (r.ok ? r[as]() : Promise.reject(new Error(`HTTP ${r.status}`))));
  timeZones ??= Promise.all([get('tzdata.bin', 'arrayBuffer'), get('tznames.tsv', 'text')])
    .then(([data, names]) => load_time_zones(new Uint8Array(data), names))
    .catch(() => { timeZones = null; return false; });
  return timeZones;
}

// The text search's stop words (written beside this script by build.mjs).
let stopWords = null;
function loadStopWords() {
  stopWords ??= fetch(new URL('stop_words.txt', import.meta.url))
    .then((r) => (r.ok ? r.text() : Promise.reject(new Error(`HTTP ${r.status}`))))
    .then((text) => load_stop_words(text))
    .catch(() => { stopWords = null; return false; });
  return stopWords;
}

/** Load what the last run wanted and had not: true when it is now there (run again). */
async function loadWanted() {
  const collation = collation_data_wanted();
  const zones = time_zones_wanted();
  const words = stop_words_wanted();
  const [c, z, w] = await Promise.all([
    collation && loadCollationData(), zones && loadTimeZones(), words && loadStopWords(),
  ]);
  // Without them a run's local dates or text search would be wrong, not missing: say so.
  if (zones && !z) throw new Error('the time-zone data could not be loaded');
  if (words && !w) throw new Error('the text search\'s stop words could not be loaded');
  return c || z || w;
}

function exported(msg) {
  const { index, name, form } = msg.export;
  return name == null
    ? export_result(msg.db, msg.script, msg.now, msg.seed, index, form)
    : export_collection(msg.db, msg.script, msg.now, msg.seed, name, form);
}
