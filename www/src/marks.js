// A highlighted statement in an editor (the one a runtime error lies in, or the
// one run at the cursor). Added to an editor on first use, so editors.js stays
// as it is.
import { EditorView, Decoration } from '@codemirror/view';
import { StateField, StateEffect } from '@codemirror/state';

const setMark = StateEffect.define();

const markField = StateField.define({
  create: () => Decoration.none,
  update(deco, tr) {
    deco = deco.map(tr.changes);
    for (const e of tr.effects) {
      if (!e.is(setMark)) continue;
      if (!e.value) { deco = Decoration.none; continue; }
      const len = tr.state.doc.length;
      const from = Math.max(0, Math.min(e.value.from, len));
      const to = Math.max(from, Math.min(e.value.to, len));
      deco = from === to ? Decoration.none
        : Decoration.set([Decoration.mark({ class: `cm-stmt-${e.value.kind}` }).range(from, to)]);
    }
    return deco;
  },
  provide: (f) => EditorView.decorations.from(f),
});

const installed = new WeakSet();

function install(view) {
  if (installed.has(view)) return;
  installed.add(view);
  view.dispatch({ effects: StateEffect.appendConfig.of(markField) });
}

/** Highlight [from, to) (UTF-16 offsets) as `kind` ('error' or 'ran') and scroll it into view. */
export function markStatement(view, from, to, kind) {
  install(view);
  view.dispatch({ effects: [setMark.of({ from, to, kind }), EditorView.scrollIntoView(Math.min(from, view.state.doc.length), { y: 'nearest' })] });
}

export function clearStatement(view) {
  if (!installed.has(view)) return;
  view.dispatch({ effects: setMark.of(null) });
}
