/** Id lookups and human names for tensors, nodes and edges of one trace. */

import type { EdgeInfo, NodeInfo, Span, TensorInfo, Trace } from "./types";

export class TraceLookup {
  readonly tensors = new Map<string, TensorInfo>();
  readonly nodes = new Map<string, NodeInfo>();
  readonly edges = new Map<string, EdgeInfo>();
  /** AccumulateGrad node id for each leaf tensor id. */
  readonly accumulatorOf = new Map<string, string>();
  private readonly lines: string[];
  private shown: Set<string> | null = null;

  constructor(readonly trace: Trace) {
    for (const t of trace.tensors) this.tensors.set(t.id, t);
    for (const n of trace.nodes) {
      this.nodes.set(n.id, n);
      if (n.kind === "accumulate" && n.variable) this.accumulatorOf.set(n.variable, n.id);
    }
    for (const e of trace.edges) this.edges.set(e.id, e);
    this.lines = trace.code.split("\n");
  }

  /** The variable name of a tensor, or a description when the snippet never named it. */
  tensorName(id: string | null | undefined): string {
    if (!id) return "None";
    const t = this.tensors.get(id);
    if (!t) return id;
    if (t.names.length > 0) return t.names.join(" = ");
    if (t.grad_fn) {
      const n = this.nodes.get(t.grad_fn);
      if (n) return `the output of ${n.name}`;
    }
    return `tensor ${id}`;
  }

  /** Whether the graph draws the tensor as a box of its own (see shownTensors). */
  isShown(id: string): boolean {
    this.shown ??= new Set(shownTensors(this.trace).map((t) => t.id));
    return this.shown.has(id);
  }

  nodeName(id: string | null | undefined): string {
    if (!id) return "None";
    return this.nodes.get(id)?.name ?? id;
  }

  /** Where gradient sent to this node ends up, in words: a leaf's name for AccumulateGrad. */
  destination(nodeId: string): string {
    const n = this.nodes.get(nodeId);
    if (!n) return nodeId;
    if (n.kind === "accumulate" && n.variable) return this.tensorName(n.variable);
    const out = n.outputs.find((o): o is string => !!o);
    const t = out ? this.tensors.get(out) : undefined;
    if (t && t.names.length > 0) return `${n.name} (${t.names.join(" = ")})`;
    return n.name;
  }

  /**
   * The tensor a node saved under `slot`: its id when the trace names it, else the node's output for
   * `result`, or the input of the same name (`self` is input 0, `other` input 1).
   */
  savedTensor(nodeId: string, slot: string): string | null {
    const n = this.nodes.get(nodeId);
    if (!n) return null;
    const saved = n.saved.find((s) => s.slot === slot);
    if (saved?.tensor) return saved.tensor;
    if (slot === "result") return n.outputs.find((o): o is string => !!o) ?? null;
    const input = { self: 0, other: 1 }[slot];
    return input !== undefined ? (n.inputs[input] ?? null) : null;
  }

  /** The smallest node span (or tensor span for leaves) that contains a source position, among `ids` if given. */
  elementAt(line: number, col: number, ids?: ReadonlySet<string>): string | null {
    let best: { id: string; size: number } | null = null;
    const consider = (id: string, span: Span | null): void => {
      if (!span || !contains(span, line, col) || (ids && !ids.has(id))) return;
      const size = (span.end_line - span.line) * 10000 + (span.end_col - span.col);
      if (!best || size < best.size) best = { id, size };
    };
    for (const n of this.trace.nodes) consider(n.id, n.span);
    for (const t of this.trace.tensors) if (t.is_leaf) consider(t.id, t.span);
    return (best as { id: string } | null)?.id ?? null;
  }

  /** The source text a span covers, on one line (multi-line spans are joined). */
  sourceText(span: Span | null | undefined): string | null {
    if (!span) return null;
    const out: string[] = [];
    for (let l = span.line; l <= span.end_line; l++) {
      const text = this.lines[l - 1];
      if (text === undefined) return null;
      const from = l === span.line ? span.col - 1 : 0;
      const to = l === span.end_line ? span.end_col - 1 : text.length;
      out.push(text.slice(from, to).trim());
    }
    const joined = out.join(" ").trim();
    return joined.length > 0 ? joined : null;
  }
}

function contains(span: Span, line: number, col: number): boolean {
  if (line < span.line || line > span.end_line) return false;
  if (line === span.line && col < span.col) return false;
  if (line === span.end_line && col >= span.end_col) return false;
  return true;
}

/** Which tensors get a box of their own (the others are represented by their grad_fn node). */
export function shownTensors(trace: Trace): TensorInfo[] {
  const inputs = new Set<string>();
  for (const n of trace.nodes) for (const i of n.inputs) if (i) inputs.add(i);
  const roots = new Set<string>();
  for (const ev of trace.events) {
    if (ev.kind === "backward_begin") for (const r of ev.roots) roots.add(r.tensor);
  }
  const accumulated = new Set(trace.nodes.filter((n) => n.kind === "accumulate").map((n) => n.variable));
  return trace.tensors.filter(
    (t) =>
      t.names.length > 0 ||
      roots.has(t.id) ||
      accumulated.has(t.id) ||
      (t.is_leaf && (t.requires_grad || inputs.has(t.id))),
  );
}
