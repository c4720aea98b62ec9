// Run the statement at the cursor (Ctrl+Shift+Enter, or the ▶ beside a
// statement): the script runs up to and including that statement, and the
// result pane brings that statement's result into view.
import { gutter, GutterMarker } from '@codemirror/view';
import { StateField, StateEffect, RangeSet } from '@codemirror/state';
import { t } from './i18n.js';

/** Every text this module puts on the page. */
export const TEXT = {
  get marker() { return t('cursor.marker'); },
  ran: (n, total) => t('cursor.ran', { n, total }),
};

class RunMarker extends GutterMarker {
  toDOM() {
    const b = document.createElement('span');
    b.className = 'cm-run-here';
    b.textContent = '▶';
    b.title = TEXT.marker;
    b.setAttribute('aria-hidden', 'true'); // the keyboard has Ctrl+Shift+Enter
    return b;
  }
}
const marker = new RunMarker();

const setStarts = StateEffect.define();
const startsField = StateField.define({
  create: () => RangeSet.empty,
  update(set, tr) {
    set = set.map(tr.changes);
    for (const e of tr.effects) if (e.is(setStarts)) set = e.value;
    return set;
  },
});

/**
 * The statement to run for cursor position `pos`: the one it lies in, else the
 * first that ends after it, else the last. `stmts`: [{start, end, text}].
 */
export function statementAt(stmts, pos) {
  if (!stmts.length) return null;
  const i = stmts.findIndex((s) => pos <= s.end);
  const index = i < 0 ? stmts.length - 1 : i;
  return { index, ...stmts[index] };
}

/**
 * Add the ▶ gutter to `view`; `onRun(pos)` runs the statement at `pos`.
 * Returns `setStatements(stmts)`, which places the markers.
 */
export function setupCursorRun(view, onRun) {
  const runGutter = gutter({
    class: 'cm-run-gutter',
    markers: (v) => v.state.field(startsField),
    domEventHandlers: {
      mousedown(v, line) {
        let hit = false;
        v.state.field(startsField).between(line.from, line.to, () => { hit = true; });
        if (!hit) return false;
        onRun(line.from);
        return true;
      },
    },
  });
  view.dispatch({ effects: StateEffect.appendConfig.of([startsField, runGutter]) });
  return (stmts) => {
    const len = view.state.doc.length;
    const lines = new Set();
    const ranges = [];
    for (const s of stmts) {
      if (s.start > len) continue;
      const line = view.state.doc.lineAt(s.start);
      if (lines.has(line.number)) continue;
      lines.add(line.number);
      ranges.push(marker.range(line.from));
    }
    view.dispatch({ effects: setStarts.of(RangeSet.of(ranges, true)) });
  };
}
