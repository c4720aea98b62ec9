// CodeMirror 6 editors for the Database and Query panes, with error marks:
// a lint diagnostic (underline, gutter, tooltip) plus the message at the line's end.
import { basicSetup } from 'codemirror';
import { EditorView, keymap, Decoration, WidgetType, hoverTooltip } from '@codemirror/view';
import { autocompletion, snippet } from '@codemirror/autocomplete';
import { EditorState, StateField, StateEffect, Prec, Compartment } from '@codemirror/state';
import { indentWithTab } from '@codemirror/commands';
import { javascript } from '@codemirror/lang-javascript';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { setDiagnostics, lintGutter } from '@codemirror/lint';
import { tags as t } from '@lezer/highlight';
import { t as tx, engineMessage } from './i18n.js';

// Colours are CSS variables, so the light/dark switch is pure CSS.
const highlight = HighlightStyle.define([
  { tag: [t.keyword, t.operatorKeyword, t.controlKeyword, t.definitionKeyword, t.moduleKeyword], color: 'var(--tok-keyword)' },
  { tag: [t.string, t.special(t.string), t.regexp], color: 'var(--tok-string)' },
  { tag: [t.number, t.bool, t.null, t.atom], color: 'var(--tok-number)' },
  { tag: [t.propertyName, t.definition(t.propertyName)], color: 'var(--tok-property)' },
  { tag: [t.function(t.variableName), t.function(t.propertyName)], color: 'var(--tok-function)' },
  { tag: [t.lineComment, t.blockComment, t.comment], color: 'var(--tok-comment)', fontStyle: 'italic' },
  { tag: [t.variableName, t.definition(t.variableName)], color: 'var(--tok-variable)' },
  { tag: [t.punctuation, t.bracket, t.separator, t.brace, t.squareBracket, t.paren], color: 'var(--tok-punct)' },
  { tag: t.invalid, color: 'var(--danger)' },
]);

const theme = EditorView.theme({
  '&': { height: '100%', backgroundColor: 'var(--editor-bg)', color: 'var(--fg)', fontSize: '13.5px' },
  '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '1.5' },
  '.cm-content': { caretColor: 'var(--fg)' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--fg)' },
  '&.cm-focused .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection': { backgroundColor: 'var(--selection) !important' },
  '.cm-gutters': { backgroundColor: 'var(--editor-gutter)', color: 'var(--muted)', borderRight: '1px solid var(--border)' },
  '.cm-activeLine': { backgroundColor: 'var(--active-line)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--active-line)', color: 'var(--fg)' },
  '&.cm-focused .cm-matchingBracket': { backgroundColor: 'var(--match-bracket)', outline: 'none' },
  '.cm-panels': { backgroundColor: 'var(--panel)', color: 'var(--fg)' },
  '.cm-panels input, .cm-panels button': { color: 'inherit' },
  '.cm-tooltip': { backgroundColor: 'var(--panel)', color: 'var(--fg)', border: '1px solid var(--border)' },
  '.cm-tooltip-autocomplete > ul > li[aria-selected]': { backgroundColor: 'var(--accent)', color: 'var(--accent-fg)' },
  // CodeMirror's lint marks are data: images, which the page's CSP (img-src 'self') refuses.
  '.cm-lintRange-error': {
    backgroundImage: 'none', textDecoration: 'underline wavy var(--danger)',
    textDecorationSkipInk: 'none', textUnderlineOffset: '3px',
  },
  '.cm-lint-marker': { content: 'normal', width: '0.7em', height: '0.7em', margin: '0.35em 0 0 0.2em' },
  '.cm-lint-marker-error': { borderRadius: '50%', backgroundColor: 'var(--danger)' },
  '.cm-op-docs': { padding: '6px 8px', maxWidth: '28em', fontFamily: 'var(--sans)', fontSize: '12.5px', display: 'grid', gap: '4px' },
  '.cm-op-docs code': { fontFamily: 'var(--mono)', fontSize: '12px', whiteSpace: 'pre-wrap' },
  '.cm-op-manual': {
    justifySelf: 'start', padding: '0', border: 'none', background: 'none', cursor: 'pointer',
    color: 'var(--accent)', textDecoration: 'underline', font: 'inherit',
  },
  '.cm-op-kind': { color: 'var(--muted)' },
  '.cm-error-note': {
    color: 'var(--danger)', backgroundColor: 'var(--danger-bg)', borderRadius: '3px',
    padding: '0 6px', marginLeft: '12px', fontFamily: 'var(--sans)', fontSize: '12px', whiteSpace: 'pre-wrap',
  },
});

class NoteWidget extends WidgetType {
  constructor(text) { super(); this.text = text; }
  eq(other) { return other.text === this.text; }
  toDOM() {
    const span = document.createElement('span');
    span.className = 'cm-error-note';
    span.setAttribute('aria-hidden', 'true'); // the lint diagnostic and the result pane say it too
    span.textContent = this.text;
    return span;
  }
  ignoreEvent() { return true; }
}

const setNote = StateEffect.define();
const noteField = StateField.define({
  create: () => Decoration.none,
  update(deco, tr) {
    deco = deco.map(tr.changes);
    for (const e of tr.effects) {
      if (e.is(setNote)) {
        if (!e.value) deco = Decoration.none;
        else {
          const line = tr.state.doc.lineAt(Math.min(e.value.pos, tr.state.doc.length));
          deco = Decoration.set([Decoration.widget({ widget: new NoteWidget(e.value.text), side: 1 }).range(line.to)]);
        }
      }
    }
    return deco;
  },
  provide: (f) => EditorView.decorations.from(f),
});

/** Completion from the engine (`assist.complete`): each option's skeleton becomes a snippet. */
function engineCompletion(assist) {
  return async (context) => {
    const before = context.state.sliceDoc(Math.max(0, context.pos - 1), context.pos);
    if (!context.explicit && !/[\w$."']/.test(before)) return null;
    const res = await assist.complete(context.state.doc.toString(), context.pos);
    if (!res || context.aborted || !res.options.length) return null;
    return {
      from: res.from,
      to: res.to,
      options: res.options.map((o) => ({
        label: o.label, type: o.type, detail: o.detail, info: o.info || undefined,
        apply: o.apply ? snippet(o.apply) : undefined,
      })),
      validFor: /^[\w$.]*$/,
    };
  };
}

/** Hover over an operator (`$group`): its summary, syntax and manual link. */
function operatorHover(assist, card) {
  return hoverTooltip(async (view, pos) => {
    const line = view.state.doc.lineAt(pos);
    const at = pos - line.from;
    for (const m of line.text.matchAll(/\$[A-Za-z][A-Za-z0-9]*/g)) {
      if (at < m.index || at > m.index + m[0].length) continue;
      if (m.index > 0 && line.text[m.index - 1] === '$') return null; // a $$variable
      const entries = await assist.docs(m[0]);
      if (!entries?.length) return null;
      return { pos: line.from + m.index, end: line.from + m.index + m[0].length, above: true, create: () => ({ dom: card(entries) }) };
    }
    return null;
  });
}

// Each editor's marks: the last run's error and the last check's diagnostics, shown together.
const marks = new WeakMap();

function showMarks(view) {
  const m = marks.get(view) ?? { run: [], check: [] };
  const len = view.state.doc.length;
  const seen = new Set();
  const all = [];
  // A run's mark holds only while the text is the one that ran; after an edit the check speaks.
  const run = m.runDoc === view.state.doc ? m.run : [];
  for (const d of [...run, ...m.check]) {
    const from = Math.min(d.from, len);
    const to = Math.min(Math.max(d.to, from), len);
    const key = `${from}:${to}:${d.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    all.push({ ...d, from, to });
  }
  return setDiagnostics(view.state, all);
}

/** The engine's check of this pane: `[{from, to, message}]` with UTF-16 offsets. */
export function showCheck(view, diagnostics) {
  const m = marks.get(view) ?? { run: [], check: [] };
  m.check = diagnostics.map((d) => widen(view, d.from, d.to, engineMessage(d)));
  marks.set(view, m);
  view.dispatch(showMarks(view));
}

function widen(view, start, end, message) {
  const len = view.state.doc.length;
  let from = Math.max(0, Math.min(start ?? 0, len));
  let to = Math.max(from, Math.min(end ?? from, len));
  if (to === from) {
    // An empty span (end of input): widen to one character so the underline shows.
    if (to < len) to += 1; else if (from > 0) from -= 1;
  }
  return { from, to, severity: 'error', message };
}

// CodeMirror's own words (search panel, go to line, folding, lint panel, screen-reader
// announcements) from the catalogue (keys `editor.*`); `$` is CodeMirror's parameter.
const PHRASES = {
  Find: 'editor.find', Replace: 'editor.replace', next: 'editor.next', previous: 'editor.previous',
  all: 'editor.all', 'match case': 'editor.matchCase', regexp: 'editor.regexp', 'by word': 'editor.byWord',
  replace: 'editor.replaceOne', 'replace all': 'editor.replaceAll', close: 'editor.close',
  'current match': 'editor.currentMatch', 'on line': 'editor.onLine', 'Go to line': 'editor.goToLine',
  go: 'editor.go', 'replaced match on line $': 'editor.replacedOnLine', 'replaced $ matches': 'editor.replacedCount',
  Diagnostics: 'editor.diagnostics', 'No diagnostics': 'editor.noDiagnostics', Completions: 'editor.completions',
  'Control character': 'editor.controlChar', 'Selection deleted': 'editor.selectionDeleted',
  'folded code': 'editor.foldedCode', unfold: 'editor.unfold', 'Fold line': 'editor.foldLine',
  'Unfold line': 'editor.unfoldLine', 'Folded lines': 'editor.foldedLines', 'Unfolded lines': 'editor.unfoldedLines',
  to: 'editor.to',
};
const words = new Compartment();
const labelled = new Compartment();
const phrases = () => EditorState.phrases.of(Object.fromEntries(Object.entries(PHRASES).map(([en, key]) => [en, tx(key)])));
const ariaLabel = (label) => EditorView.contentAttributes.of({ 'aria-label': label });

/** After a change of language: CodeMirror's words and the editor's label in the new one. */
export function relabelEditor(view, label) {
  view.dispatch({ effects: [words.reconfigure(phrases()), labelled.reconfigure(ariaLabel(label))] });
}

/**
 * Create an editor. `onChange(text)` fires on edits; `commands` maps extra
 * keys (Mod-Enter to run and so on) with the highest precedence; `assist`
 * (optional, see assist.js) completes and describes operators.
 */
export function createEditor(parent, { doc, label, onChange, commands, assist, card }) {
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        Prec.highest(keymap.of(commands)),
        basicSetup,
        keymap.of([indentWithTab]),
        javascript(),
        EditorView.lineWrapping,
        syntaxHighlighting(highlight),
        lintGutter(),
        ...(assist ? [autocompletion({ override: [engineCompletion(assist)], icons: false }), operatorHover(assist, card)] : []),
        noteField,
        theme,
        labelled.of(ariaLabel(label)),
        words.of(phrases()),
        EditorView.updateListener.of((u) => { if (u.docChanged) onChange(u.state.doc.toString()); }),
      ],
    }),
  });
  return view;
}

export function getText(view) {
  return view.state.doc.toString();
}

/** Replace the whole text (one undoable change), keeping the cursor near where it was. */
export function setText(view, text) {
  if (getText(view) === text) return;
  const head = Math.min(view.state.selection.main.head, text.length);
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, selection: { anchor: head } });
}

/** Mark an error at UTF-16 offsets [start, end) (CodeMirror counts UTF-16 too). */
export function showError(view, { start, end, message }) {
  const d = widen(view, start, end, message);
  const m = marks.get(view) ?? { run: [], check: [] };
  m.run = [d];
  m.runDoc = view.state.doc;
  marks.set(view, m);
  view.dispatch(showMarks(view), { effects: setNote.of({ pos: d.from, text: message }) });
}

export function clearError(view) {
  const m = marks.get(view) ?? { run: [], check: [] };
  m.run = [];
  marks.set(view, m);
  view.dispatch(showMarks(view), { effects: setNote.of(null) });
}
