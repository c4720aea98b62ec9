// The Stages view: one pipeline of the script (an aggregate, or a pipeline
// update over the documents it matched), one card per stage with the stage's
// text, how many documents it output and its first documents (the engine
// keeps 20). A card's switch turns its stage off for the next run of the
// view; the text in the editor stays as it is. A $lookup card holds its
// sub-pipeline's stages for its first input documents (the engine shows 3).
import { el, renderValue, shellText, errorText, firstLine } from './results.js';
import { t, num } from './i18n.js';

const SHOWN_OPEN = 3; // documents shown before "show more"

/** Every text this module puts on the page. */
export const TEXT = {
  get button() { return t('stages.button'); },
  get buttonTitle() { return t('stages.buttonTitle'); },
  get title() { return t('stages.title'); },
  pipeline: (i, text) => `${i + 1}: ${text}`,
  get back() { return t('stages.back'); },
  on: (name) => t('stages.on', { name }),
  get off() { return t('stages.off'); },
  get notRun() { return t('stages.notRun'); },
  count: (n) => t('stages.count', { n: num(n) }),
  more: (n) => t('stages.more', { n: num(n) }),
  moreOf: (n, kept) => t('stages.moreOf', { n: num(n), kept: num(kept) }),
  facet: (name) => t('stages.facet', { name }),
  lookup: (n) => t('stages.lookup', { n: num(n) }),
  lookupInput: (k, doc) => t('stages.lookupInput', { k: num(k), doc }),
  get none() { return t('stages.none'); },
  get failed() { return t('stages.failed'); },
};

/** Is this statement an aggregate (so it has stages to show)? */
export function isAggregate(text) {
  return /\.aggregate\s*\(/.test(text ?? '');
}

/**
 * Is this statement an update whose update argument is a pipeline (an array
 * after the filter)? Read from the text: the first argument is skipped with
 * its brackets and strings.
 */
export function isPipelineUpdate(text) {
  const m = /\.(?:updateOne|updateMany|findOneAndUpdate|update)\s*\(/.exec(text ?? '');
  if (!m) return false;
  let depth = 0;
  let quote = null;
  for (let i = m.index + m[0].length; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'" || c === '`') quote = c;
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) { if (depth-- === 0) return false; }
    else if (c === ',' && depth === 0) return /^\s*\[/.test(text.slice(i + 1));
  }
  return false;
}

/** Does this statement run a pipeline the view can show? */
export function hasPipeline(text) {
  return isAggregate(text) || isPipelineUpdate(text);
}

/**
 * Render the engine's stage report (`data`: {pipelines, stages, error?}).
 * `opts`: {target, off: Set, labels: [text], onToggle(i, on), onSelect(k), onClose()}.
 */
export function renderStages(container, view, data, opts) {
  container.replaceChildren();
  const head = el('div', { class: 'stages-head' });
  const back = el('button', { type: 'button', class: 'linkish stages-back', text: `← ${TEXT.back}` });
  back.addEventListener('click', opts.onClose);
  head.append(back);
  const n = data.pipelines ?? 0;
  if (n > 0) {
    const label = el('label', { class: 'stages-pick' }, el('span', { text: `${TEXT.title} ` }));
    const select = el('select', { id: 'stages-select' });
    for (let k = 0; k < n; k++) {
      const opt = el('option', { value: String(k), text: TEXT.pipeline(k, firstLine(opts.labels[k] ?? 'aggregate()')) });
      if (k === opts.target) opt.selected = true;
      select.append(opt);
    }
    select.addEventListener('change', () => opts.onSelect(Number(select.value)));
    label.append(select);
    head.append(label);
  }
  container.append(head);
  if (!data.stages) {
    if (data.error) container.append(el('section', { class: 'error', role: 'alert' }, el('p', { class: 'error-title', text: `${TEXT.failed} ${errorText(data.error)}` })));
    else container.append(el('p', { class: 'muted empty', text: TEXT.none }));
    return;
  }
  const list = el('ol', { class: 'stage-list' });
  data.stages.forEach((s, i) => list.append(card(view, s, i, opts)));
  container.append(list);
}

function card(view, s, i, opts) {
  const li = el('li', { class: `stage-card${s.off ? ' stage-off' : ''}${s.error ? ' stage-failed' : ''}`, 'data-stage': String(i) });
  const top = el('div', { class: 'stage-top' });
  if (opts?.onToggle) {
    const box = el('input', { type: 'checkbox', class: 'stage-switch', 'aria-label': TEXT.on(s.name) });
    box.checked = !s.off;
    box.addEventListener('change', () => opts.onToggle(i, box.checked));
    top.append(box);
  }
  top.append(el('span', { class: 'stage-num', text: String(i + 1) }), el('code', { class: 'stage-name', text: s.name }));
  const count = s.off ? TEXT.off : s.count == null ? (s.error ? '' : TEXT.notRun) : TEXT.count(s.count);
  top.append(el('span', { class: 'stage-count', text: count }));
  li.append(top);
  const text = shellText(s.stage);
  text.classList.add('stage-text');
  li.append(text);
  if (s.error) {
    li.append(el('section', { class: 'error', role: 'alert' }, el('p', { class: 'error-title', text: errorText(s.error) })));
  }
  if (s.facets?.length) {
    for (const f of s.facets) {
      const sub = el('ol', { class: 'stage-list stage-facet' });
      f.stages.forEach((fs, j) => sub.append(card(view, fs, j, null)));
      li.append(el('div', { class: 'facet' }, el('h4', { class: 'facet-name', text: TEXT.facet(f.name) }), sub));
    }
  } else if (s.count) {
    li.append(docs(view, s));
  }
  if (s.lookups?.length) li.append(lookups(view, s.lookups));
  return li;
}

// A $lookup's sub-pipeline, stage by stage, for each shown input document
// (the first open, the others folded).
function lookups(view, list) {
  const box = el('div', { class: 'lookup' }, el('h4', { class: 'lookup-title', text: TEXT.lookup(list.length) }));
  list.forEach((l, k) => {
    const sub = el('ol', { class: 'stage-list stage-sub' });
    l.stages.forEach((ls, j) => sub.append(card(view, ls, j, null)));
    const one = el('details', { class: 'lookup-input' },
      el('summary', {}, el('code', { text: TEXT.lookupInput(k + 1, firstLine(l.input)) })), sub);
    if (k === 0) one.open = true;
    box.append(one);
  });
  return box;
}

function docs(view, s) {
  const box = el('div', { class: 'stage-docs' });
  const docsOf = (from, to) => s.docs.slice(from, to).map((d, j) => el('div', { class: 'doc' }, renderValue(view, s.shell[from + j] ?? '', d)));
  box.append(...docsOf(0, SHOWN_OPEN));
  if (s.docs.length > SHOWN_OPEN) {
    const more = el('details', { class: 'unchanged' }, el('summary', { class: 'muted', text: TEXT.more(s.docs.length - SHOWN_OPEN) }));
    more.addEventListener('toggle', () => {
      if (more.open && more.childElementCount === 1) more.append(...docsOf(SHOWN_OPEN, s.docs.length));
    });
    box.append(more);
  }
  if (s.count > s.docs.length) box.append(el('p', { class: 'muted', text: TEXT.moreOf(s.count - s.docs.length, s.docs.length) }));
  return box;
}

/**
 * The view's controller. `deps`: {runner, result (element), job() → the run job,
 * stmts() → the last run's statements, view() → the result format, onShown()}.
 */
export function stagesController(deps) {
  let open = null; // {target, off: Set}
  let last = null; // the engine's last report
  const labels = () => (deps.stmts() ?? []).filter((s) => hasPipeline(s.text)).map((s) => s.text);
  const draw = () => renderStages(deps.result, deps.view(), last, {
    target: open.target,
    off: open.off,
    labels: labels(),
    onToggle: (i, on) => { if (on) open.off.delete(i); else open.off.add(i); refresh(); },
    onSelect: (k) => { open = { target: k, off: new Set() }; refresh(); },
    onClose: () => { open = null; last = null; deps.onClose(); },
  });
  async function refresh() {
    if (!open) return;
    const res = await deps.runner.run({ ...deps.job(), stages: { target: open.target, off: [...open.off] } });
    if (!open) return;
    if (res.stopped) { deps.onStopped(res); return; }
    // After an edit the script may run fewer aggregates: show its last one.
    const n = res.out.pipelines ?? 0;
    if (!res.out.stages && n > 0 && open.target >= n) {
      open = { target: n - 1, off: new Set() };
      return refresh();
    }
    last = res.out;
    draw();
    deps.onShown();
  }
  return {
    get open() { return open !== null; },
    /** Show pipeline `k` (the k-th pipeline the script runs). */
    show(k) { open = { target: k, off: new Set() }; return refresh(); },
    refresh,
    /** Draw again in another format, without running. */
    redraw() { if (open && last) draw(); },
    /** A "Stages" button for result `i`, if its statement runs a pipeline. */
    button(i) {
      const stmts = deps.stmts() ?? [];
      if (!hasPipeline(stmts[i]?.text)) return null;
      const k = stmts.slice(0, i).filter((s) => hasPipeline(s.text)).length;
      const b = el('button', { type: 'button', class: 'result-tool', title: TEXT.buttonTitle, text: TEXT.button });
      b.addEventListener('click', () => this.show(k));
      return b;
    },
  };
}
