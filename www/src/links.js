// Opening a share link over autosaved work: ask first — open it beside the
// work (this tab then saves to a copy of its own, see state.js), replace the
// work, or keep it. The link stays in the address bar (so copying the URL
// shares it) until the first edit. A tab on a copy says so, with a way to
// make the copy the saved work or to open the saved work in a new tab.
import { t } from './i18n.js';
import { el } from './results.js';

/** Every text this module puts on the page. */
export const TEXT = {
  get title() { return t('links.title'); },
  get body() { return t('links.body'); },
  get beside() { return t('links.beside'); },
  get replace() { return t('links.replace'); },
  get keep() { return t('links.keep'); },
  get replaced() { return t('links.replaced'); },
  get kept() { return t('links.kept'); },
  get besideDone() { return t('links.besideDone'); },
  get copyNote() { return t('links.copyNote'); },
  get movedNote() { return t('links.movedNote'); },
  get openSaved() { return t('links.openSaved'); },
  get adopt() { return t('links.adopt'); },
  get adopted() { return t('links.adopted'); },
};

let dialog = null;

const CHOICES = [['beside', 'beside', true], ['replace', 'replace', false], ['keep', 'keep', false]];

function build() {
  const d = document.createElement('dialog');
  d.id = 'link-dialog';
  d.setAttribute('aria-labelledby', 'link-title');
  const h = document.createElement('h2');
  h.id = 'link-title';
  const p = document.createElement('p');
  const row = document.createElement('div');
  row.className = 'dialog-actions';
  for (const [value, , primary] of CHOICES) {
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.choice = value;
    if (primary) b.className = 'primary';
    b.addEventListener('click', () => d.close(value));
    row.append(b);
  }
  d.append(h, p, row);
  document.body.append(d);
  return d;
}

/** The dialog's words in the current language. */
function label(d) {
  d.querySelector('#link-title').textContent = TEXT.title;
  d.querySelector('p').textContent = TEXT.body;
  for (const [value, key] of CHOICES) d.querySelector(`[data-choice="${value}"]`).textContent = TEXT[key];
}

/**
 * Ask what a link does to the current work: 'beside' (a copy of its own in
 * this tab), 'replace', or 'keep' (also Escape).
 */
export function askReplace() {
  dialog ??= build();
  label(dialog);
  return new Promise((resolve) => {
    dialog.returnValue = 'keep';
    dialog.addEventListener('close', () => resolve(dialog.returnValue || 'keep'), { once: true });
    dialog.showModal();
    dialog.querySelector('[data-choice="beside"]').focus();
  });
}

/** Does the link's state differ from the work in the editors? */
export function differs(current, incoming) {
  return current.db !== incoming.db || current.script !== incoming.script;
}

/** Remove the link from the address bar (after the first edit: the link no longer matches). */
export function dropLinkFromAddress() {
  if (/^#v\d/.test(location.hash)) history.replaceState(null, '', location.pathname + location.search);
}

/**
 * Show (or, with `why` null, hide) the line that says this tab works on a
 * copy: `why` 'link' (opened beside) or 'moved' (another tab took the saved
 * work). `onAdopt` makes the copy the saved work.
 */
export function copyNote(why, onAdopt) {
  let note = document.getElementById('copy-note');
  if (!why) {
    note?.remove();
    return;
  }
  if (!note) {
    note = document.createElement('div');
    note.id = 'copy-note';
    note.className = 'copy-note';
    note.setAttribute('role', 'status');
    document.getElementById('banner').after(note);
  }
  const text = document.createElement('span');
  text.className = 'copy-note-text';
  text.textContent = why === 'moved' ? TEXT.movedNote : TEXT.copyNote;
  // This page without a link: a new tab (no session copied) opens the saved work.
  const open = el('a', { href: location.pathname + location.search, target: '_blank', rel: 'noopener', text: TEXT.openSaved });
  const adopt = document.createElement('button');
  adopt.type = 'button';
  adopt.id = 'copy-adopt';
  adopt.textContent = TEXT.adopt;
  adopt.addEventListener('click', onAdopt);
  note.dataset.why = why;
  note.replaceChildren(text, open, adopt);
}
