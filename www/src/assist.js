// Editor assistance on the page's side: the engine checks both panes a short
// pause after typing (diagnostics without Run), completes from the text and
// the cursor, and describes operators on hover. All of it runs in a worker of
// its own (see assist_worker.js), so a long run never delays it and it never
// delays typing.
import { engineModule, operatorDocs } from './engine.js';
import { t, language, onLanguage } from './i18n.js';

/** Every page string of this module. */
export const TEXT = {
  get manualLink() { return t('assist.manualLink'); },
  workerName: 'mqlplay assist',
};

/** Every catalogue URL points into MongoDB's manual; nothing else is opened. */
const MANUAL = 'https://www.mongodb.com/docs/manual/';

/**
 * What the engine writes in English, in the page's language: the engine gives each
 * text a key (`op.stage.$match`, `kind.stage`, `method.collection.find`, `var.ROOT` …)
 * and `i18n/assist/<lang>.json` translates it; English (the engine's own words) is the
 * fallback. A catalogue is fetched only for the language in use.
 */
const assistCatalogues = new Map();

function assistCatalogue(lang) {
  if (lang === 'en') return Promise.resolve({});
  if (!assistCatalogues.has(lang)) {
    const url = new URL(`i18n/assist/${lang}.json`, document.baseURI);
    const load = fetch(url).then((r) => (r.ok ? r.json() : {})).catch(() => {
      assistCatalogues.delete(lang); // offline: English now, another try next time
      return {};
    });
    assistCatalogues.set(lang, load);
  }
  return assistCatalogues.get(lang);
}

onLanguage((lang) => { assistCatalogue(lang); }); // ready before the first hover

/** Completion options with their detail and info in the page's language. */
async function translateOptions(options) {
  const words = await assistCatalogue(language());
  return options.map((o) => ({
    ...o,
    detail: words[o.detailKey] ?? o.detail,
    info: (o.infoKey && words[o.infoKey]) || o.info,
  }));
}

/** Hover entries with their kind and summary in the page's language. */
async function translateDocs(entries) {
  const words = await assistCatalogue(language());
  return entries.map((e) => ({ ...e, kind: words[e.kindKey] ?? e.kind, summary: words[e.summaryKey] ?? e.summary }));
}

/** Pause after the last keystroke before a pane is checked. */
const CHECK_DELAY_MS = 300;
/** A Database text this long is checked after a longer pause, and posted less often. */
const LARGE_TEXT = 1_000_000;
const LARGE_DELAY_MS = 1500;

export class Assistant {
  /** `onDiagnostics(pane, diagnostics)`: `pane` is 'db' or 'script'; offsets are UTF-16. */
  constructor(onDiagnostics) {
    this.onDiagnostics = onDiagnostics;
    this.worker = null;
    this.version = { db: 0, script: 0 };
    this.completions = new Map();
    this.nextId = 1;
    this.dbTimer = 0;
    this.lastCheckMs = { db: 0, script: 0 };
  }

  start() {
    if (this.worker) return;
    const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: TEXT.workerName });
    this.worker = worker;
    worker.onmessage = (e) => this.message(e.data);
    worker.onerror = (e) => { e.preventDefault(); this.restart(); };
    engineModule().then((module) => worker.postMessage({ type: 'init', module }));
  }

  /** The worker trapped or failed: answer what waits with nothing and start afresh. */
  restart() {
    this.worker?.terminate();
    this.worker = null;
    for (const resolve of this.completions.values()) resolve(null);
    this.completions.clear();
    this.start();
  }

  message(msg) {
    if (msg.type === 'assist-diagnostics') {
      // A newer text is on its way: its check will answer.
      if (msg.version !== this.version[msg.pane]) return;
      this.lastCheckMs[msg.pane] = msg.ms;
      this.onDiagnostics(msg.pane, msg.diagnostics);
    } else if (msg.type === 'assist-completion') {
      const resolve = this.completions.get(msg.id);
      this.completions.delete(msg.id);
      const res = msg.completion;
      translateOptions(res.options).then((options) => resolve?.({ ...res, options }));
    } else if (msg.type === 'assist-crash') {
      this.restart();
    }
  }

  /** A pane's text changed (or was loaded): check it after a pause. */
  changed(pane, text) {
    this.start();
    const version = ++this.version[pane];
    const large = text.length > LARGE_TEXT;
    const post = () => this.worker?.postMessage({
      type: 'assist-check', pane, version, text, delay: large ? LARGE_DELAY_MS : CHECK_DELAY_MS,
    });
    if (pane !== 'db') return post();
    // A large Database text is not even copied to the worker on every keystroke.
    clearTimeout(this.dbTimer);
    if (large) this.dbTimer = setTimeout(post, LARGE_DELAY_MS);
    else post();
  }

  /** Candidates at a UTF-16 cursor: `{from, to, options}`, or null. */
  complete(text, cursor) {
    this.start();
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.completions.set(id, resolve);
      this.worker.postMessage({ type: 'assist-complete', id, text, cursor });
    });
  }

  /** Catalogue entries for an operator name (hover docs). */
  async docs(name) {
    return translateDocs(await operatorDocs(name));
  }
}

/** The hover card of an operator: text nodes only, one link to its manual page. */
export function docsCard(entries) {
  const box = document.createElement('div');
  box.className = 'cm-op-docs';
  for (const e of entries) {
    const head = document.createElement('div');
    const name = document.createElement('strong');
    name.textContent = e.name;
    const kind = document.createElement('span');
    kind.className = 'cm-op-kind';
    kind.textContent = ` ${e.kind}`;
    head.append(name, kind);
    const summary = document.createElement('div');
    summary.textContent = e.summary;
    const syntax = document.createElement('code');
    syntax.textContent = e.syntax;
    // A button, not a link: the page sets no href from data (see tests/hostile_links.test.mjs).
    const link = document.createElement('button');
    link.type = 'button';
    link.className = 'cm-op-manual';
    link.textContent = TEXT.manualLink;
    link.title = e.url;
    link.addEventListener('click', () => {
      if (e.url.startsWith(MANUAL)) window.open(e.url, '_blank', 'noopener,noreferrer');
    });
    box.append(head, summary, syntax, link);
  }
  return box;
}
