// The page's text in the reader's language. Catalogues: www/i18n/<lang>.json, flat
// keys, `{name}` parameters and `{n|one|other}` for a word that follows a number
// (Intl.PluralRules picks). English is bundled and fills any key a catalogue lacks.
//
// The language: `?lang=` in the address (then saved), else the saved choice, else a
// share link's language (setLinkLanguage), else the first of navigator.languages the
// page speaks, else English. <html lang> follows.
import en from '../i18n/en.json';
import { renderInline } from '../tutorials/markdown.js';

/** Each language the page speaks, named in itself. */
export const LANGUAGES = [
  ['en', 'English'],
  ['pt-BR', 'Português'],
  ['ja', '日本語'],
  ['ko', '한국어'],
  ['de', 'Deutsch'],
];
const SAVED = 'mqlplay.lang';
const CODES = LANGUAGES.map(([code]) => code);

let current = 'en';
let catalogue = en;
let applied = false; // a catalogue is on the page
let chosen = false; // the reader chose (saved or ?lang=): a link's language does not apply
const listeners = new Set();

/** A known language code for `tag` (`pt`, `pt-PT`, `JA-jp` …), or null. */
export function languageOf(tag) {
  if (typeof tag !== 'string') return null;
  const lower = tag.trim().toLowerCase();
  const exact = CODES.find((c) => c.toLowerCase() === lower);
  if (exact) return exact;
  const base = lower.split(/[-_]/)[0];
  return CODES.find((c) => c.toLowerCase().split('-')[0] === base) ?? null;
}

export const language = () => current;

/** The raw template for `key` (no parameters filled). */
export function raw(key) {
  return catalogue[key] ?? en[key] ?? key;
}

/** Fill `{name}` and `{name|one|other}` from params; `none` stands for a missing one. */
export function fill(template, params = {}, none = undefined) {
  const rules = new Intl.PluralRules(current);
  return template.replace(/\{(\w+)(?:\|([^|}]*)\|([^}]*))?\}/g, (whole, name, one, other) => {
    const v = params[name];
    if (one !== undefined) return rules.select(Number(v)) === 'one' ? one : other;
    if (v === undefined || v === '') return none ?? (name in params ? '' : whole);
    return String(v);
  });
}

/** The text for `key` in the page's language, parameters filled. */
export function t(key, params) {
  return params ? fill(raw(key), params) : raw(key);
}

/**
 * An engine error's message in the page's language. The engine names its own
 * sentences (`text: {key, params}`, a parameter may itself be such a phrase);
 * MongoDB's messages carry none and stay as written, as does any unknown key.
 */
export function engineMessage(err) {
  const text = err && err.text;
  return text && text.key in en ? engineText(text) : err && err.message;
}

function engineText({ key, params }) {
  const filled = {};
  for (const [name, v] of Object.entries(params ?? {})) filled[name] = v && typeof v === 'object' ? engineText(v) : v;
  return fill(raw(key), filled);
}

/** A number as the page's language writes it. */
export const num = (n) => Number(n).toLocaleString(current);

/**
 * Put the catalogue's text into `root`'s marked elements: `data-i18n` (text),
 * `data-i18n-md` (`code` and **bold**), `data-i18n-attr="aria-label=key title=key"`.
 */
export function applyTo(root = document) {
  for (const e of root.querySelectorAll('[data-i18n]')) e.textContent = t(e.dataset.i18n);
  for (const e of root.querySelectorAll('[data-i18n-md]')) renderInline(e, t(e.dataset.i18nMd));
  for (const e of root.querySelectorAll('[data-i18n-attr]')) {
    for (const pair of e.dataset.i18nAttr.split(/\s+/)) {
      const [attr, key] = pair.split('=');
      if (attr && key) e.setAttribute(attr, t(key));
    }
  }
}

/** Call `fn` after each change of language. */
export function onLanguage(fn) {
  listeners.add(fn);
}

async function load(code) {
  if (code === 'en') return en;
  const r = await fetch(new URL(`i18n/${code}.json`, document.baseURI));
  if (!r.ok) throw new Error(`i18n/${code}.json: HTTP ${r.status}`);
  return r.json();
}

/** Switch to `code` (a known one); `save`: the reader's own choice. */
export async function setLanguage(code, save = false) {
  let lang = languageOf(code) ?? 'en';
  if (save) {
    chosen = true;
    try { localStorage.setItem(SAVED, lang); } catch { /* storage disabled */ }
  }
  let next;
  try {
    next = await load(lang);
  } catch {
    if (applied) return false; // offline or missing: stay in the current language
    lang = 'en';
    next = en;
  }
  applied = true;
  current = lang;
  catalogue = next;
  document.documentElement.lang = lang;
  applyTo(document);
  const picker = document.getElementById('lang');
  if (picker) picker.value = lang;
  for (const fn of listeners) fn(lang);
  return true;
}

/** The language at start: ?lang=, the saved choice, the browser's languages, English. */
export function startLanguage() {
  const param = languageOf(new URLSearchParams(location.search).get('lang'));
  let saved = null;
  try { saved = languageOf(localStorage.getItem(SAVED)); } catch { /* storage disabled */ }
  const browser = (navigator.languages ?? [navigator.language]).map(languageOf).find(Boolean);
  chosen = Boolean(param || saved);
  return setLanguage(param ?? saved ?? browser ?? 'en', Boolean(param));
}

/** A share link's language: the page follows it unless the reader chose one. */
export function setLinkLanguage(code) {
  const lang = languageOf(code);
  if (!lang || chosen || lang === current) return null;
  return setLanguage(lang);
}

/** The toolbar's language picker. */
export function setupPicker(select) {
  for (const [code, name] of LANGUAGES) {
    const o = document.createElement('option');
    o.value = code;
    o.lang = code;
    o.textContent = name;
    select.append(o);
  }
  select.value = current;
  select.addEventListener('change', () => setLanguage(select.value, true));
}
