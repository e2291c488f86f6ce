/** The CodeMirror editor: Python highlighting, Ctrl/Cmd+Enter to run, error and current-span marks. */

import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { HighlightStyle, bracketMatching, indentOnInput, syntaxHighlighting } from "@codemirror/language";
import { tags } from "@lezer/highlight";
import { EditorState, RangeSetBuilder, StateEffect, StateField, type Extension } from "@codemirror/state";
import {
  Decoration,
  type DecorationSet,
  EditorView,
  drawSelection,
  highlightActiveLine,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import type { Span } from "../trace/types";

export interface EditorMark {
  /** The line with an error (1-based), if any. */
  errorLine: number | null;
  errorSpan: Span | null;
  /** The source range of the current step's node. */
  current: Span | null;
}

const setMarks = StateEffect.define<EditorMark>();

/** Colours come from CSS variables so the light and dark themes both read well. */
const highlight = HighlightStyle.define([
  { tag: [tags.keyword, tags.controlKeyword, tags.definitionKeyword, tags.moduleKeyword, tags.operatorKeyword], color: "var(--code-keyword)" },
  { tag: [tags.bool, tags.null, tags.atom], color: "var(--code-atom)" },
  { tag: [tags.number], color: "var(--code-number)" },
  { tag: [tags.string, tags.special(tags.string)], color: "var(--code-string)" },
  { tag: [tags.comment, tags.lineComment], color: "var(--code-comment)", fontStyle: "italic" },
  { tag: [tags.function(tags.variableName), tags.function(tags.propertyName)], color: "var(--code-function)" },
  { tag: [tags.definition(tags.variableName), tags.className], color: "var(--code-def)" },
]);

function offset(state: EditorState, line: number, col: number): number | null {
  if (line < 1 || line > state.doc.lines) return null;
  const l = state.doc.line(line);
  return Math.min(l.from + Math.max(0, col - 1), l.to);
}

function spanRange(state: EditorState, span: Span): [number, number] | null {
  const from = offset(state, span.line, span.col);
  const to = offset(state, span.end_line, span.end_col);
  if (from === null || to === null || to <= from) return null;
  return [from, to];
}

function decorate(state: EditorState, marks: EditorMark): DecorationSet {
  const ranges: { from: number; to: number; deco: Decoration }[] = [];
  if (marks.errorLine !== null && marks.errorLine >= 1 && marks.errorLine <= state.doc.lines) {
    const l = state.doc.line(marks.errorLine);
    ranges.push({ from: l.from, to: l.from, deco: Decoration.line({ class: "cm-gs-error-line" }) });
  }
  if (marks.errorSpan) {
    const r = spanRange(state, marks.errorSpan);
    if (r) ranges.push({ from: r[0], to: r[1], deco: Decoration.mark({ class: "cm-gs-error-span" }) });
  }
  if (marks.current) {
    const r = spanRange(state, marks.current);
    if (r) ranges.push({ from: r[0], to: r[1], deco: Decoration.mark({ class: "cm-gs-current" }) });
  }
  ranges.sort((a, b) => a.from - b.from || (a.deco.spec.class === "cm-gs-error-line" ? -1 : 1));
  const builder = new RangeSetBuilder<Decoration>();
  for (const r of ranges) builder.add(r.from, r.to, r.deco);
  return builder.finish();
}

const markField = StateField.define<{ marks: EditorMark; decos: DecorationSet }>({
  create: () => ({ marks: { errorLine: null, errorSpan: null, current: null }, decos: Decoration.none }),
  update(value, tr) {
    let marks = value.marks;
    for (const e of tr.effects) if (e.is(setMarks)) marks = e.value;
    if (tr.docChanged) marks = { errorLine: null, errorSpan: null, current: null };
    if (marks === value.marks && !tr.docChanged) return value;
    return { marks, decos: decorate(tr.state, marks) };
  },
  provide: (f) => EditorView.decorations.from(f, (v) => v.decos),
});

export interface EditorOptions {
  parent: HTMLElement;
  doc: string;
  onRun: () => void;
  onChange: (code: string) => void;
  /** The user clicked the code at this line and column (both from 1). */
  onPick?: (line: number, col: number) => void;
  /** A code pane to read, not edit (embeds and offline lessons). */
  readOnly?: boolean;
}

export class CodeEditor {
  readonly view: EditorView;

  constructor(opts: EditorOptions) {
    const runKey = keymap.of([
      {
        key: "Mod-Enter",
        preventDefault: true,
        run: () => {
          opts.onRun();
          return true;
        },
      },
    ]);
    const extensions: Extension[] = [
      runKey,
      lineNumbers(),
      history(),
      drawSelection(),
      indentOnInput(),
      bracketMatching(),
      highlightActiveLine(),
      syntaxHighlighting(highlight),
      python(),
      keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
      markField,
      EditorView.contentAttributes.of({ "aria-label": opts.readOnly ? "PyTorch code (read-only)" : "PyTorch code" }),
      ...(opts.readOnly ? [EditorState.readOnly.of(true), EditorView.editable.of(false)] : []),
      EditorView.domEventHandlers({
        click: (event, view) => {
          const pos = view.posAtCoords({ x: event.clientX, y: event.clientY });
          if (pos === null || !opts.onPick) return false;
          const line = view.state.doc.lineAt(pos);
          opts.onPick(line.number, pos - line.from + 1);
          return false;
        },
      }),
      EditorView.updateListener.of((u) => {
        if (u.docChanged) opts.onChange(u.state.doc.toString());
      }),
    ];
    this.view = new EditorView({ parent: opts.parent, state: EditorState.create({ doc: opts.doc, extensions }) });
  }

  get code(): string {
    return this.view.state.doc.toString();
  }

  set code(text: string) {
    this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: text } });
  }

  mark(marks: EditorMark): void {
    this.view.dispatch({ effects: setMarks.of(marks) });
  }

  focus(): void {
    this.view.focus();
  }
}
