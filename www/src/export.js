// Copy and download what a run produced, exactly: a statement's result as the
// shell prints it or as canonical Extended JSON, and every collection after
// the run (changed or not) as a canonical Extended JSON array (`.json`, the
// form `mongoimport --jsonArray` reads) or in the shell's form. Canonical
// text keeps every type (Int64, Decimal128, doubles, dates, binary); the
// engine writes it from the run's own values (`exporter`: see main.js).
import { el } from './results.js';
import { t } from './i18n.js';

/** Every text this module puts on the page. */
export const TEXT = {
  get copy() { return t('export.copy'); },
  get copyTitle() { return t('export.copyTitle'); },
  get copyEjson() { return t('export.copyEjson'); },
  get copyEjsonTitle() { return t('export.copyEjsonTitle'); },
  get download() { return t('export.download'); },
  get downloadTitle() { return t('export.downloadTitle'); },
  downloadCollection: (name) => t('export.downloadCollection', { name }),
  get downloadCollectionTitle() { return t('export.downloadCollectionTitle'); },
  get copyCollectionTitle() { return t('export.copyCollectionTitle'); },
  get allTitle() { return t('export.allTitle'); },
  get copied() { return t('export.copied'); },
  get notCopied() { return t('export.notCopied'); },
  failed: (error) => t('export.failed', { error }),
  saved: (file) => t('export.saved', { file }),
};

// Copy text that is still being made: a ClipboardItem takes the promise, so
// the click's permission to write still holds when the engine answers.
async function copy(text, status) {
  try {
    if (typeof ClipboardItem === 'function' && navigator.clipboard.write) {
      const blob = text.then((s) => new Blob([s], { type: 'text/plain' }));
      await navigator.clipboard.write([new ClipboardItem({ 'text/plain': blob })]);
    } else {
      await navigator.clipboard.writeText(await text);
    }
    status(TEXT.copied);
  } catch {
    // The engine's refusal (a failed run) or the browser's.
    const failure = await text.then(() => null, (err) => err);
    status(failure ? TEXT.failed(failure.message) : TEXT.notCopied);
  }
}

async function download(file, text, status) {
  let body;
  try {
    body = await text;
  } catch (e) {
    status(TEXT.failed(e.message));
    return;
  }
  const url = URL.createObjectURL(new Blob([body], { type: 'application/json' }));
  const a = el('a', { href: url, download: file });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  status(TEXT.saved(file));
}

function tool(text, title, onClick) {
  const b = el('button', { type: 'button', class: 'result-tool', title, text });
  b.addEventListener('click', (e) => {
    e.preventDefault(); // inside a <summary>: do not fold the collection
    onClick();
  });
  return b;
}

/**
 * The buttons for result `i` of `out` (the engine's run output). `exporter`:
 * {result(i, form), collection(name, form)} → a promise of the engine's text
 * (`form`: 'array', 'value' or 'shell').
 */
export function resultTools(out, i, exporter, status) {
  return [
    // A long result's shell text holds only its first page: the engine writes it whole.
    tool(TEXT.copy, TEXT.copyTitle, () => copy(out.totals?.[i] ? exporter.result(i, 'shell') : Promise.resolve(out.shell?.[i] ?? ''), status)),
    tool(TEXT.copyEjson, TEXT.copyEjsonTitle, () => copy(exporter.result(i, 'value'), status)),
    tool(TEXT.download, TEXT.downloadTitle, () => download(`result-${i + 1}.json`, exporter.result(i, 'array'), status)),
  ];
}

const fileOf = (name) => `${name.replace(/[^\w.-]+/g, '_') || 'collection'}.json`;

/** The download button of a collection the run changed. */
export function collectionTool(name, exporter, status) {
  return tool(TEXT.downloadCollection(name), TEXT.downloadCollectionTitle,
    () => download(fileOf(name), exporter.collection(name, 'array'), status));
}

/** Every collection after the run (`out.names`), each with Copy and Download. */
export function allCollections(out, exporter, status) {
  const names = out.names ?? [];
  if (!names.length) return null;
  const list = el('ul', { class: 'all-collections-list' });
  for (const name of names) {
    list.append(el('li', { class: 'all-collection', 'data-collection': name },
      el('code', { class: 'coll-name', text: name }),
      tool(TEXT.copy, TEXT.copyCollectionTitle, () => copy(exporter.collection(name, 'shell'), status)),
      tool(TEXT.download, TEXT.downloadCollectionTitle, () => download(fileOf(name), exporter.collection(name, 'array'), status))));
  }
  return el('section', { class: 'all-collections', 'aria-label': TEXT.allTitle },
    el('h3', { class: 'section-title', text: TEXT.allTitle }), list);
}
