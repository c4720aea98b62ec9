// The page's settings: the run's clock, seed and time zone (the Settings strip),
// the result view buttons and the light/dark theme.
import { state } from './state.js';
import { knownTimeZone } from './engine.js';
import { t } from './i18n.js';

const THEME = 'mqlplay.theme';
const $ = (id) => document.getElementById(id);

function isoOf(ms) {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : d.toISOString();
}

/** Show `state`'s clock, seed and time zone (a field being typed in keeps its text). */
export function showSettings() {
  if (document.activeElement !== $('now')) $('now').value = isoOf(state.now);
  $('now').removeAttribute('aria-invalid');
  $('live-now').checked = state.liveNow;
  if (document.activeElement !== $('seed')) $('seed').value = String(state.seed);
  if (document.activeElement !== $('tz')) $('tz').value = state.tz;
  const summary = t(state.liveNow ? 'settings.summaryLive' : 'settings.summary', { now: isoOf(state.now), seed: state.seed });
  $('settings-summary').textContent = state.tz ? `${summary} · ${t('settings.summaryTz', { tz: state.tz })}` : summary;
}

/** Wire the settings' fields to `state`; `status(text)` reports a bad value, `save()` keeps a good one. */
export function setupSettings({ status, save }) {
  $('now').addEventListener('change', () => {
    const ms = Date.parse($('now').value.trim());
    if (Number.isNaN(ms)) {
      $('now').setAttribute('aria-invalid', 'true');
      status(t('settings.badNow'));
      return;
    }
    state.now = ms;
    state.liveNow = false;
    showSettings();
    save();
  });
  $('live-now').addEventListener('change', () => {
    state.liveNow = $('live-now').checked;
    if (state.liveNow) state.now = Date.now();
    showSettings();
    save();
  });
  $('seed').addEventListener('change', () => {
    const n = Number($('seed').value);
    if (!Number.isSafeInteger(n) || n < 0) {
      $('seed').setAttribute('aria-invalid', 'true');
      status(t('settings.badSeed'));
      return;
    }
    $('seed').removeAttribute('aria-invalid');
    state.seed = n;
    showSettings();
    save();
  });
  $('tz').addEventListener('change', async () => {
    const name = $('tz').value.trim();
    if (!await knownTimeZone(name)) {
      $('tz').setAttribute('aria-invalid', 'true');
      status(t('settings.badTz'));
      return;
    }
    $('tz').removeAttribute('aria-invalid');
    state.tz = name;
    showSettings();
    save();
  });
}

/** Press the view button of `state.view`. */
export function showView() {
  for (const b of document.querySelectorAll('[data-view]')) {
    b.setAttribute('aria-pressed', String(b.dataset.view === state.view));
  }
}

/** Wire the view buttons: a click sets `state.view`, then `render()` redraws the result and `save()` keeps it. */
export function setupViews({ render, save }) {
  for (const b of document.querySelectorAll('[data-view]')) {
    b.addEventListener('click', () => {
      state.view = b.dataset.view;
      showView();
      render();
      save();
    });
  }
  showView();
}

function systemDark() {
  return window.matchMedia('(prefers-color-scheme: dark)').matches;
}

/** Apply the chosen theme, or the system's, and label the theme button in the page's language. */
export function applyTheme() {
  const chosen = localStorage.getItem(THEME);
  const dark = chosen ? chosen === 'dark' : systemDark();
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  $('theme').setAttribute('aria-label', t(dark ? 'theme.toLight' : 'theme.toDark'));
  $('theme').title = t(dark ? 'theme.light' : 'theme.dark');
}

export function setupTheme() {
  applyTheme();
  window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', applyTheme);
  $('theme').addEventListener('click', () => {
    const dark = document.documentElement.dataset.theme === 'dark';
    // Choosing the system's own theme goes back to following the system.
    if (!dark === systemDark()) localStorage.removeItem(THEME);
    else localStorage.setItem(THEME, dark ? 'light' : 'dark');
    applyTheme();
  });
}
