// "Edited since this run": once either pane differs from the text the shown
// result came from, the result is dimmed and says so, so an old result is never
// read as the answer to the new text.
import { t } from './i18n.js';

const TEXT = {
  get note() { return t('stale.note'); },
};

let ran = null; // {db, script} of the result shown

/** The result shown now comes from this text (null: no result shown). */
export function resultFrom(job, result) {
  ran = job ? { db: job.db, script: job.script } : null;
  show(result, false);
}

/** After an edit: mark the result stale when the text differs from its run's. */
export function checkStale(state, result) {
  show(result, ran !== null && (state.db !== ran.db || state.script !== ran.script));
}

function show(result, stale) {
  result.classList.toggle('stale', stale);
  let note = document.getElementById('stale-note');
  if (stale && !note) {
    note = document.createElement('p');
    note.id = 'stale-note';
    note.className = 'stale-note';
    note.setAttribute('role', 'status');
    note.textContent = TEXT.note;
    result.before(note);
  }
  if (note) {
    note.hidden = !stale;
    note.textContent = TEXT.note; // in the page's language of the moment
  }
}
