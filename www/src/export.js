// Copy a statement's result (shell text or Extended JSON) and download a result
// or a changed collection as an Extended JSON array (`.json`), the form
// `mongoimport --jsonArray` reads.
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
  get copied() { return t('export.copied'); },
  get notCopied() { return t('export.notCopied'); },
  saved: (file) => t('export.saved', { file }),
};

/** An Extended JSON array of `value` (a non-array value becomes a one-element array). */
export function jsonArrayText(value) {
  const docs = Array.isArray(value) ? value : [value];
  return `[\n${docs.map((d) => `  ${JSON.stringify(d)}`).join(',\n')}\n]\n`;
}

async function copy(text, status) {
  try {
    await navigator.clipboard.writeText(text);
    status(TEXT.copied);
  } catch {
    status(TEXT.notCopied);
  }
}

function download(file, text, status) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = el('a', { href: url, download: file });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  status(TEXT.saved(file));
}

function tool(text, title, onClick) {
  const b = el('button', { type: 'button', class: 'result-tool', title, text });
  b.addEventListener('click', onClick);
  return b;
}

/** The buttons for result `i` of `out` (the engine's run output). */
export function resultTools(out, i, status) {
  return [
    tool(TEXT.copy, TEXT.copyTitle, () => copy(out.shell?.[i] ?? '', status)),
    tool(TEXT.copyEjson, TEXT.copyEjsonTitle, () => copy(JSON.stringify(out.results[i], null, 2), status)),
    tool(TEXT.download, TEXT.downloadTitle, () => download(`result-${i + 1}.json`, jsonArrayText(out.results[i]), status)),
  ];
}

/** The download button of a collection the run changed. */
export function collectionTool(out, name, status) {
  const docs = out.collections?.[name];
  if (!docs) return null;
  const safe = name.replace(/[^\w.-]+/g, '_') || 'collection';
  return tool(TEXT.downloadCollection(name), TEXT.downloadCollectionTitle, (e) => {
    e.preventDefault(); // inside a <summary>: do not fold the collection
    download(`${safe}.json`, jsonArrayText(docs), status);
  });
}
