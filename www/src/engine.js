// The page's side of the engine. The first worker fetches and compiles the
// wasm itself (so a run can start before this thread has even parsed the page)
// and hands the compiled module back: this thread instantiates it for quick
// pure calls (format, links) and gives it to every later worker.
import { t } from './i18n.js';
import init, { format as wasmFormat, encode_link, decode_link, operator_docs, statements, set_time_zone } from '../pkg/mqlplay.js';

export const TIME_LIMIT_MS = 10_000;

let module = null;
let gotModule;
const moduleReady = new Promise((resolve) => { gotModule = resolve; });
let mainReady = null;
let spare = null; // a worker started by bootWorker(), waiting for the Runner
let runner = null;
let early = null; // {job, promise}: the first run, started by the boot script

// The fast engine: the same engine built for speed (pkg/mqlplay_fast_bg.wasm, about 1.3 MB more
// to download: BENCHMARKS.md), fetched only once a run shows that the data is large, and
// used by every later run. Until it has compiled, or if it cannot be had (offline), the
// small engine runs everything.
const FAST_DB_CHARS = 1 << 20; // a Database text at least this long,
const FAST_RUN_MS = 200; // or a run at least this slow (engine time)
let fast = null; // null | 'loading' | 'failed' | the compiled module

/** After a run: fetch and compile the fast engine if the data is large. */
function considerFast(dbChars, ms) {
  if (fast !== null || !module || (dbChars < FAST_DB_CHARS && !(ms >= FAST_RUN_MS))) return;
  fast = 'loading';
  WebAssembly.compileStreaming(fetch(new URL('../pkg/mqlplay_fast_bg.wasm', import.meta.url)))
    .then((m) => { fast = runsUnderSameGlue(m) ? m : 'failed'; })
    .catch(() => { fast = 'failed'; });
}

/** Whether `m` instantiates with the small engine's JavaScript glue (the build checks it too). */
function runsUnderSameGlue(m) {
  const imp = (x) => `${x.module}|${x.name}|${x.kind}`;
  const exp = (x) => `${x.name}|${x.kind}`;
  const provided = new Set(WebAssembly.Module.imports(module).map(imp));
  const exported = new Set(WebAssembly.Module.exports(m).map(exp));
  return WebAssembly.Module.imports(m).every((x) => provided.has(imp(x)))
    && WebAssembly.Module.exports(module).every((x) => exported.has(exp(x)));
}

const fastModule = () => (fast instanceof WebAssembly.Module ? fast : null);

function onWorkerMessage(worker, msg) {
  if (msg.type === 'module') {
    if (!module) {
      module = msg.module;
      performance.mark('mqlplay:compiled');
      gotModule(module);
    }
    return;
  }
  if (runner && runner.worker === worker) runner.message(msg);
}

function newWorker() {
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'mqlplay engine' });
  worker.onmessage = (e) => onWorkerMessage(worker, e.data);
  worker.onerror = (e) => {
    e.preventDefault();
    if (runner && runner.worker === worker) runner.failed(e.message || 'the engine worker failed');
  };
  // Without a module yet, this worker compiles one (and reports it); afterwards workers reuse it.
  const chosen = fastModule() ?? module;
  worker.fast = chosen !== null && chosen === fastModule();
  worker.postMessage(chosen ? { type: 'init', module: chosen } : { type: 'compile' });
  return worker;
}

/** Start the engine worker as early as possible (called by the tiny boot script). */
export function bootWorker() {
  if (!spare && !runner?.worker) spare = newWorker();
}

/** Start the first run before the page is built (see boot.js). */
export function startEarlyRun(job) {
  if (early || runner?.busy) return;
  early = { job, promise: getRunner().run(job) };
}

/** The early run's result promise, if it ran exactly this job and nobody took it yet. */
export function takeEarlyRun(job) {
  const e = early;
  early = null;
  if (!e) return null;
  const same = Object.keys(job).every((k) => job[k] === e.job[k]);
  return same ? e.promise : null;
}

/** The one Runner of the page. */
export function getRunner() {
  return runner ?? new Runner();
}

/** The engine on this thread, for quick pure calls (format, links). */
export function loadEngine() {
  if (!mainReady) {
    bootWorker(); // the module comes from a worker
    mainReady = moduleReady.then(async (m) => {
      await init({ module_or_path: m });
      return m;
    });
  }
  return mainReady;
}

/** Call a pure export; a trap re-instantiates the main-thread copy. */
async function pure(fn, ...args) {
  await loadEngine();
  try {
    return fn(...args);
  } catch (e) {
    mainReady = null;
    await loadEngine();
    throw e;
  }
}

export const format = (text) => pure(wasmFormat, text);
export const encodeLink = (state) => pure(encode_link, state);
export const decodeLink = (fragment) => pure(decode_link, fragment);
export const operatorDocs = (name) => pure(operator_docs, name);
/** Whether the engine knows a time zone name ('' is UTC). */
export const knownTimeZone = (name) => pure(set_time_zone, name);

/** The compiled engine module, for workers of other parts of the page (assist.js). */
export function engineModule() {
  bootWorker();
  return moduleReady;
}
export const statementsOf = (script) => pure(statements, script);

/**
 * Runs scripts in a worker. `run()` resolves with {out, stmts, ms, check} (`out`
 * parsed from the worker's JSON text) or
 * {stopped: 'stop'|'timeout'|'crash', message}. One run at a time: a new run
 * replaces the one in progress.
 */
export class Runner {
  constructor(onBusy = () => {}) {
    this.onBusy = onBusy;
    this.worker = null;
    this.pending = null;
    this.nextId = 1;
    this.pages = new Map(); // request number → resolve, for page()
    this.nextPage = 1;
    this.timeLimit = TIME_LIMIT_MS;
    runner = this;
  }

  spawn() {
    if (this.worker) return;
    this.worker = spare ?? newWorker();
    spare = null;
  }

  get busy() {
    return this.pending !== null;
  }

  run(job) {
    if (this.pending) this.stop('stop');
    this.upgrade();
    this.spawn();
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.stop('timeout'), this.timeLimit);
      this.pending = { id, resolve, timer, dbChars: job.db?.length ?? 0 };
      this.onBusy(true);
      this.worker.postMessage({ type: 'run', id, ...job });
    });
  }

  /** Between runs: once the fast engine has compiled, the small one's worker gives way to it. */
  upgrade() {
    if (fastModule() && this.worker && !this.worker.fast) this.dropWorker();
  }

  /** Terminate the worker; the documents it kept for `page()` are gone with it. */
  dropWorker() {
    for (const resolve of this.pages.values()) resolve(null);
    this.pages.clear();
    this.worker?.terminate();
    this.worker = null;
  }

  /**
   * Documents `from..from + count` of result `index` of run `runId` (its `id`):
   * {docs, shell}, or null when the engine no longer keeps them.
   */
  page(runId, index, from, count) {
    if (!this.worker || this.busy) return Promise.resolve(null);
    const req = this.nextPage++;
    return new Promise((resolve) => {
      this.pages.set(req, resolve);
      this.worker.postMessage({ type: 'page', req, runId, index, from, count });
    });
  }

  message(msg) {
    if (msg.type === 'page') {
      const resolve = this.pages.get(msg.req);
      this.pages.delete(msg.req);
      resolve?.(JSON.parse(msg.json));
    }
    else if (msg.type === 'result' && this.pending?.id === msg.id) {
      // A string is cheap to post; parsing it here beats cloning an object graph.
      // The run reports its statements and the tutorial check's verdict beside its output.
      const { json, ...rest } = msg;
      const { stmts, check, ...out } = JSON.parse(json);
      const { dbChars } = this.pending;
      // Which engine ran: for the browser tests and for anyone inspecting the page.
      document.documentElement.dataset.engine = this.worker?.fast ? 'fast' : 'small';
      this.finish({ ...rest, out, stmts: stmts ?? [], check: check ?? null }, false);
      considerFast(dbChars, msg.ms);
    }
    // A worker that could not load the engine fails the run in progress (if any); no retry loop.
    else if (msg.type === 'crash' && this.pending && (msg.id === null || this.pending.id === msg.id)) this.failed(msg.message);
  }

  /** The worker died or trapped: report it and start a fresh one. */
  failed(message) {
    this.finish({ stopped: 'crash', message }, true);
  }

  /** End the current run: the worker is terminated and a fresh one started. */
  stop(reason = 'stop') {
    if (!this.pending) return;
    const message = reason === 'timeout'
      ? t('status.timeLimit', { seconds: this.timeLimit / 1000 })
      : t('status.stoppedByUser');
    this.finish({ stopped: reason, message }, true);
  }

  finish(result, restart) {
    const pending = this.pending;
    if (restart) {
      this.dropWorker();
      this.spawn();
    }
    if (!pending) return;
    clearTimeout(pending.timer);
    this.pending = null;
    this.onBusy(false);
    pending.resolve(result);
  }
}
