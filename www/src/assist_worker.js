// The assistance side of the engine worker (see assist.js): checks the panes
// a short pause after typing, and answers completions at once. A newer text
// replaces an older one still waiting, so only the latest is ever checked.
import { assist_database, assist_script, assist_complete } from '../pkg/mqlplay.js';

const waiting = { db: null, script: null };
let timer = 0;
let dbText = null; // the Database text the engine's summary was built from

function checkNow() {
  timer = 0;
  try {
    checkWaiting();
  } catch (e) {
    // A trap leaves the instance unusable: the page starts a new worker.
    self.postMessage({ type: 'assist-crash', message: String(e && e.message || e) });
  }
}

function checkWaiting() {
  for (const pane of ['db', 'script']) {
    const msg = waiting[pane];
    if (!msg) continue;
    waiting[pane] = null;
    const started = performance.now();
    let diagnostics;
    if (pane === 'db') {
      diagnostics = dbText === msg.text ? null : assist_database(msg.text);
      dbText = msg.text;
    } else {
      diagnostics = assist_script(msg.text);
    }
    if (diagnostics !== null) {
      self.postMessage({ type: 'assist-diagnostics', pane, version: msg.version, diagnostics, ms: performance.now() - started });
    }
  }
}

/** Handle one assistance message once the engine is ready. */
export function handleAssist(msg) {
  if (msg.type === 'assist-check') {
    waiting[msg.pane] = msg;
    clearTimeout(timer);
    // The largest delay asked for wins: a big Database text is checked less often.
    const delay = Math.max(msg.delay, waiting.db?.delay ?? 0, waiting.script?.delay ?? 0);
    timer = setTimeout(checkNow, delay);
  } else if (msg.type === 'assist-complete') {
    // The Database summary must be current before completing from it.
    if (waiting.db && waiting.db.text !== dbText) {
      dbText = waiting.db.text;
      const diagnostics = assist_database(dbText);
      self.postMessage({ type: 'assist-diagnostics', pane: 'db', version: waiting.db.version, diagnostics, ms: 0 });
      waiting.db = null;
    }
    const completion = assist_complete(msg.text, msg.cursor);
    self.postMessage({ type: 'assist-completion', id: msg.id, completion });
  }
}
