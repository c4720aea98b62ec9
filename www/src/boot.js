// Loaded just before the page's main bundle (module scripts run in order): starts the engine worker (which
// fetches and compiles the wasm) and the first run of the saved state while the
// browser is still parsing the editor code. The main bundle adopts that run.
import { bootWorker, startEarlyRun } from './engine.js';
import { state, restoreSaved, runJob, isLink } from './state.js';

performance.mark('mqlplay:boot');
bootWorker();
// A link is decoded by the main bundle first; without one, the saved state runs now.
if (!isLink(location.hash) && !document.body?.dataset.started) {
  restoreSaved();
  if (state.liveNow) state.now = Date.now();
  startEarlyRun(runJob());
}
