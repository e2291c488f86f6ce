/** Trace to frames: the full visible state after every timeline step, so seeking is O(1). */

import { addValues, formatSum, formatValue } from "./format";
import { narrate } from "./narration";
import { TraceLookup } from "./trace/lookup";
import type { ArrayValue, ErrorInfo, Span, Trace, TraceEvent } from "./trace/types";

export type Phase = "forward" | "backward" | "after";

/** Dynamic label lines per graph element; dot.ts reserves room for them. */
export const DYNAMIC_LINES = { tensor: 2, node: 1, edge: 1 } as const;

export interface Frame {
  /** 0-based index of this step. */
  step: number;
  event: TraceEvent | null;
  phase: Phase;
  pass: number | null;
  /** Tensor and node ids that exist at this point of the run. */
  visible: ReadonlySet<string>;
  /** The graph element (node or tensor id) this step is about. */
  active: string | null;
  /** Edges that carried gradient in this step. */
  activeEdges: readonly string[];
  /** Gradient last sent along each edge in the current pass. */
  edgeGrads: Readonly<Record<string, ArrayValue | null>>;
  /** Running total of gradient waiting at each node that has not run yet. */
  buffered: Readonly<Record<string, ArrayValue>>;
  /** Gradient each node received when it ran in the current pass. */
  nodeGrads: Readonly<Record<string, ArrayValue>>;
  /** Nodes that have run in the current pass. */
  ran: ReadonlySet<string>;
  /** `.grad` of tensors (leaves, and non-leaves that retain_grad). */
  grads: Readonly<Record<string, ArrayValue | null>>;
  /** Gradients returned by torch.autograd.grad. */
  captured: Readonly<Record<string, ArrayValue | null>>;
  values: Readonly<Record<string, ArrayValue>>;
  versions: Readonly<Record<string, number>>;
  freed: ReadonlySet<string>;
  /** "2.0 + 2.0 = 4.0" when this step sums contributions. */
  sum: string | null;
  narration: string;
  line: number | null;
  span: Span | null;
  stdout: string;
  error: ErrorInfo | null;
  /** Text for the dynamic label lines of graph elements, keyed by element id. */
  labels: Readonly<Record<string, readonly string[]>>;
}

interface Mutable {
  phase: Phase;
  pass: number | null;
  visible: Set<string>;
  edgeGrads: Record<string, ArrayValue | null>;
  buffered: Record<string, ArrayValue>;
  nodeGrads: Record<string, ArrayValue>;
  ran: Set<string>;
  grads: Record<string, ArrayValue | null>;
  captured: Record<string, ArrayValue | null>;
  values: Record<string, ArrayValue>;
  versions: Record<string, number>;
  freed: Set<string>;
  stdout: string;
  accumulated: Record<string, string>;
}

interface StepInfo {
  active: string | null;
  activeEdges: string[];
  sum: string | null;
  line: number | null;
  span: Span | null;
  error: ErrorInfo | null;
}

function initial(trace: Trace): Mutable {
  const values: Record<string, ArrayValue> = {};
  for (const t of trace.tensors) values[t.id] = t.value;
  return {
    phase: "forward",
    pass: null,
    visible: new Set(),
    edgeGrads: {},
    buffered: {},
    nodeGrads: {},
    ran: new Set(),
    grads: {},
    captured: {},
    values,
    versions: {},
    freed: new Set(),
    stdout: "",
    accumulated: {},
  };
}

/** AccumulateGrad nodes have no forward event: they appear once something that feeds them does. */
function revealAccumulators(s: Mutable, lookup: TraceLookup): void {
  for (const e of lookup.trace.edges) {
    if (s.visible.has(e.source) && !s.visible.has(e.target)) {
      const n = lookup.nodes.get(e.target);
      if (n?.kind === "accumulate") {
        s.visible.add(e.target);
        if (n.variable) s.visible.add(n.variable);
      }
    }
  }
}

function apply(ev: TraceEvent, s: Mutable, lookup: TraceLookup): StepInfo {
  const info: StepInfo = { active: null, activeEdges: [], sum: null, line: null, span: null, error: null };
  switch (ev.kind) {
    case "tensor": {
      s.visible.add(ev.tensor);
      info.active = ev.tensor;
      info.line = ev.line ?? null;
      info.span = lookup.tensors.get(ev.tensor)?.span ?? null;
      break;
    }
    case "op": {
      for (const t of ev.tensors) s.visible.add(t);
      if (ev.node) {
        s.visible.add(ev.node);
        const node = lookup.nodes.get(ev.node);
        for (const i of node?.inputs ?? []) if (i) s.visible.add(i);
        info.span = node?.span ?? null;
      }
      revealAccumulators(s, lookup);
      info.active = ev.node ?? ev.tensors[0] ?? null;
      info.span = info.span ?? lookup.tensors.get(ev.tensors[0] ?? "")?.span ?? null;
      info.line = ev.line ?? info.span?.line ?? null;
      break;
    }
    case "inplace": {
      s.values[ev.tensor] = ev.value;
      s.versions[ev.tensor] = ev.version;
      s.visible.add(ev.tensor);
      if (ev.node) s.visible.add(ev.node);
      revealAccumulators(s, lookup);
      info.active = ev.node ?? ev.tensor;
      info.line = ev.line ?? null;
      break;
    }
    case "print": {
      s.stdout += ev.text.endsWith("\n") ? ev.text : `${ev.text}\n`;
      info.line = ev.line ?? null;
      break;
    }
    case "grad_mode": {
      info.line = ev.line ?? null;
      break;
    }
    case "backward_begin": {
      s.phase = "backward";
      s.pass = ev.pass;
      s.edgeGrads = {};
      s.buffered = {};
      s.nodeGrads = {};
      s.ran = new Set();
      for (const r of ev.roots) {
        if (r.node) {
          s.buffered[r.node] = r.grad;
          s.visible.add(r.node);
        }
        s.visible.add(r.tensor);
      }
      info.active = ev.roots[0]?.tensor ?? null;
      info.line = ev.line ?? null;
      break;
    }
    case "node_run": {
      s.phase = "backward";
      s.pass = ev.pass;
      s.visible.add(ev.node);
      const grads = ev.received.map((c) => c.grad);
      const total = ev.grad_outputs[0] ?? addValues(grads);
      if (total) s.nodeGrads[ev.node] = total;
      if (grads.length > 1) info.sum = formatSum(grads, total);
      delete s.buffered[ev.node];
      s.ran.add(ev.node);
      for (const sent of ev.sent) {
        s.edgeGrads[sent.edge] = sent.grad;
        info.activeEdges.push(sent.edge);
        const edge = lookup.edges.get(sent.edge);
        if (!edge) continue;
        s.visible.add(edge.target);
        const running = sent.total ?? sent.grad;
        if (running && !s.ran.has(edge.target)) s.buffered[edge.target] = running;
      }
      info.active = ev.node;
      info.span = lookup.nodes.get(ev.node)?.span ?? null;
      info.line = info.span?.line ?? null;
      break;
    }
    case "accumulate": {
      s.grads[ev.tensor] = ev.after;
      s.ran.add(ev.node);
      delete s.buffered[ev.node];
      s.nodeGrads[ev.node] = ev.contribution;
      info.sum = formatSum([ev.before ?? "0", ev.contribution], ev.after);
      s.accumulated[ev.node] = info.sum;
      s.visible.add(ev.node);
      s.visible.add(ev.tensor);
      info.active = ev.tensor;
      const t = lookup.tensors.get(ev.tensor);
      info.span = t?.span ?? null;
      break;
    }
    case "retain_grad": {
      s.grads[ev.tensor] = ev.grad;
      info.active = ev.tensor;
      break;
    }
    case "capture": {
      s.captured[ev.tensor] = ev.grad;
      info.active = ev.tensor;
      break;
    }
    case "hook": {
      info.active = ev.target;
      break;
    }
    case "backward_end": {
      s.phase = "after";
      for (const id of ev.freed) s.freed.add(id);
      s.buffered = {};
      break;
    }
    case "error": {
      info.error = ev.error;
      info.active = ev.error.node ?? null;
      info.line = ev.error.line ?? null;
      if (ev.error.line) {
        info.span = {
          line: ev.error.line,
          col: ev.error.col ?? 1,
          end_line: ev.error.end_line ?? ev.error.line,
          end_col: ev.error.end_col ?? (ev.error.col ?? 1) + 1,
        };
      }
      break;
    }
  }
  return info;
}

function labelsOf(s: Mutable, lookup: TraceLookup): Record<string, string[]> {
  const labels: Record<string, string[]> = {};
  for (const t of lookup.trace.tensors) {
    const visible = s.visible.has(t.id);
    const v = s.values[t.id];
    const grad = s.grads[t.id];
    const captured = s.captured[t.id];
    let gradLine = "";
    if (grad) gradLine = `grad ${formatValue(grad)}`;
    else if (captured) gradLine = `returned ${formatValue(captured)}`;
    labels[t.id] = [visible && v ? `= ${formatValue(v)}` : "", gradLine];
  }
  for (const n of lookup.trace.nodes) {
    let line = "";
    const acc = s.accumulated[n.id];
    const waiting = s.buffered[n.id];
    const got = s.nodeGrads[n.id];
    if (n.kind === "accumulate" && acc && s.ran.has(n.id)) line = acc;
    else if (waiting) line = `grad ${formatValue(waiting)}`;
    else if (got && s.ran.has(n.id)) line = `grad ${formatValue(got)}`;
    labels[n.id] = [line];
  }
  for (const e of lookup.trace.edges) {
    const g = s.edgeGrads[e.id];
    labels[e.id] = [e.id in s.edgeGrads ? (g ? formatValue(g) : "None") : ""];
  }
  return labels;
}

function snapshot(step: number, ev: TraceEvent | null, s: Mutable, info: StepInfo, lookup: TraceLookup): Frame {
  return {
    step,
    event: ev,
    phase: s.phase,
    pass: s.pass,
    visible: new Set(s.visible),
    active: info.active,
    activeEdges: info.activeEdges,
    edgeGrads: { ...s.edgeGrads },
    buffered: { ...s.buffered },
    nodeGrads: { ...s.nodeGrads },
    ran: new Set(s.ran),
    grads: { ...s.grads },
    captured: { ...s.captured },
    values: { ...s.values },
    versions: { ...s.versions },
    freed: new Set(s.freed),
    sum: info.sum,
    narration: narrate(ev, lookup),
    line: info.line,
    span: info.span,
    stdout: s.stdout,
    error: info.error,
    labels: labelsOf(s, lookup),
  };
}

/** Every step of the trace as a frame; a trace with no events still has one frame. */
export function buildFrames(trace: Trace, lookup: TraceLookup = new TraceLookup(trace)): Frame[] {
  const s = initial(trace);
  const frames: Frame[] = [];
  trace.events.forEach((ev, i) => {
    const info = apply(ev, s, lookup);
    frames.push(snapshot(i, ev, s, info, lookup));
  });
  if (frames.length === 0) {
    const info: StepInfo = { active: null, activeEdges: [], sum: null, line: null, span: null, error: trace.error };
    const first = snapshot(0, null, s, info, lookup);
    frames.push(trace.error ? { ...first, narration: `${trace.error.type}: ${trace.error.message}` } : first);
  }
  return frames;
}

/** Where the player starts: the graph fully built, just before the first backward pass. */
export function startStep(frames: readonly Frame[]): number {
  const first = frames.findIndex((f) => f.event?.kind === "backward_begin");
  if (first > 0) return first - 1;
  if (first === 0) return 0;
  return Math.max(0, frames.length - 1);
}

/** The longest text each dynamic label line ever shows, so the layout can reserve room once. */
export function labelWidths(frames: readonly Frame[]): Map<string, number[]> {
  const widths = new Map<string, number[]>();
  for (const f of frames) {
    for (const [id, lines] of Object.entries(f.labels)) {
      const w = widths.get(id) ?? lines.map(() => 0);
      lines.forEach((l, i) => {
        w[i] = Math.max(w[i] ?? 0, l.length);
      });
      widths.set(id, w);
    }
  }
  return widths;
}
