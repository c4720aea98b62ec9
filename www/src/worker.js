// The engine's thread: runs scripts so the page never freezes. The page may
// terminate this worker at any time (Stop, time limit, a trap) and start a new one.
import init, { run, statements } from '../pkg/mqlplay.js';

let ready = null;

self.onmessage = async (event) => {
  const msg = event.data;
  if (msg.type === 'init') {
    ready = init({ module_or_path: msg.module });
    try {
      await ready;
      self.postMessage({ type: 'ready' });
    } catch (e) {
      self.postMessage({ type: 'crash', id: null, message: String(e && e.message || e) });
    }
    return;
  }
  if (msg.type === 'run') {
    try {
      await ready;
      // The configuration alone gives the initial collections, to mark what the script changed.
      const base = msg.script.trim() === '' ? null : run(msg.db, '', msg.now, msg.seed);
      const t0 = performance.now();
      const out = run(msg.db, msg.script, msg.now, msg.seed);
      const ms = performance.now() - t0;
      const stmts = statements(msg.script);
      self.postMessage({ type: 'result', id: msg.id, out, base, stmts, ms });
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
