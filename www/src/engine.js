// The page's side of the engine: one compiled wasm module, an instance on this
// thread for quick pure calls (format, links), and a Web Worker for runs.
import init, { format as wasmFormat, encode_link, decode_link } from '../pkg/mqlplay.js';

export const TIME_LIMIT_MS = 10_000;

let module = null;
let mainReady = null;

/** Compile the wasm once; the worker instantiates the same module. */
export function loadEngine() {
  if (!mainReady) {
    const url = new URL('../pkg/mqlplay_bg.wasm', import.meta.url);
    mainReady = WebAssembly.compileStreaming(fetch(url)).then(async (m) => {
      module = m;
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
export const encodeLink = (state) => pure(encode_link, JSON.stringify(state));
export const decodeLink = (fragment) => pure(decode_link, fragment);

/**
 * Runs scripts in a worker. `run()` resolves with {out, base, stmts, ms} or
 * {stopped: 'stop'|'timeout'|'crash', message}. Only one run at a time.
 */
export class Runner {
  constructor(onBusy) {
    this.onBusy = onBusy;
    this.worker = null;
    this.pending = null;
    this.nextId = 1;
    this.timeLimit = TIME_LIMIT_MS;
  }

  async spawn() {
    const m = await loadEngine();
    const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'mqlplay engine' });
    worker.onmessage = (e) => this.message(e.data);
    worker.onerror = (e) => {
      e.preventDefault();
      this.finish({ stopped: 'crash', message: e.message || 'the engine worker failed' }, true);
    };
    worker.postMessage({ type: 'init', module: m });
    this.worker = worker;
  }

  get busy() {
    return this.pending !== null;
  }

  async run(job) {
    if (this.pending) this.stop('stop');
    if (!this.worker) await this.spawn();
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.stop('timeout'), this.timeLimit);
      this.pending = { id, resolve, timer };
      this.onBusy(true);
      this.worker.postMessage({ type: 'run', id, ...job });
    });
  }

  message(msg) {
    if (msg.type === 'ready') return;
    if (!this.pending || (msg.id !== null && msg.id !== this.pending.id)) return;
    if (msg.type === 'result') this.finish(msg, false);
    else if (msg.type === 'crash') this.finish({ stopped: 'crash', message: msg.message }, true);
  }

  /** End the current run: the worker is terminated and a fresh one started. */
  stop(reason = 'stop') {
    if (!this.pending) return;
    const message = reason === 'timeout'
      ? `Stopped: the run took longer than ${this.timeLimit / 1000} s.`
      : 'Stopped.';
    this.finish({ stopped: reason, message }, true);
  }

  finish(result, restart) {
    const pending = this.pending;
    if (restart) {
      this.worker?.terminate();
      this.worker = null;
      this.spawn();
    }
    if (!pending) return;
    clearTimeout(pending.timer);
    this.pending = null;
    this.onBusy(false);
    pending.resolve(result);
  }
}
