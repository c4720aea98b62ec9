// Opening a share link over autosaved work: ask before replacing it. The link
// stays in the address bar (so copying the URL shares it) until the first edit.
import { t } from './i18n.js';

/** Every text this module puts on the page. */
export const TEXT = {
  get title() { return t('links.title'); },
  get body() { return t('links.body'); },
  get replace() { return t('links.replace'); },
  get keep() { return t('links.keep'); },
  get replaced() { return t('links.replaced'); },
  get kept() { return t('links.kept'); },
};

let dialog = null;

function build() {
  const d = document.createElement('dialog');
  d.id = 'link-dialog';
  d.setAttribute('aria-labelledby', 'link-title');
  const h = document.createElement('h2');
  h.id = 'link-title';
  h.textContent = TEXT.title;
  const p = document.createElement('p');
  p.textContent = TEXT.body;
  const row = document.createElement('div');
  row.className = 'dialog-actions';
  for (const [value, text, primary] of [['replace', TEXT.replace, true], ['keep', TEXT.keep, false]]) {
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.choice = value;
    b.textContent = text;
    if (primary) b.className = 'primary';
    b.addEventListener('click', () => d.close(value));
    row.append(b);
  }
  d.append(h, p, row);
  document.body.append(d);
  return d;
}

/**
 * Ask whether a link may replace the current work: 'replace' or 'keep' (also
 * Escape). Not "open beside": a second tab would share, and overwrite, the autosave.
 */
export function askReplace() {
  dialog ??= build();
  return new Promise((resolve) => {
    dialog.returnValue = 'keep';
    dialog.addEventListener('close', () => resolve(dialog.returnValue || 'keep'), { once: true });
    dialog.showModal();
    dialog.querySelector('[data-choice="replace"]').focus();
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
