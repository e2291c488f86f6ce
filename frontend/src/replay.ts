/**
 * Trace to frames: the full visible state at any timeline step. Frames are built on demand from
 * checkpoints of the running state, so memory stays bounded on long traces and seeking stays cheap.
 */

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
  /** Each tensor's grad_fn at this point (an in-place change or a rebuilt view moves it on). */
  gradFn: Readonly<Record<string, string>>;
  freed: ReadonlySet<string>;
  /** "2.0 + 2.0 = 4.0" when this step sums contributions. */
  sum: string | null;
  narration: string;
  /** The author's caption for this step's source line (a `# step: ...` comment), if any. */
  caption: string | null;
  line: number | null;
  span: Span | null;
  stdout: string;
  error: ErrorInfo | null;
  /** At an error step: the tensor whose saved copy is the problem (in-place version errors). */
  errorTensor: string | null;
  /** Text for the dynamic label lines of graph elements, keyed by element id. */
  labels: Readonly<Record<string, readonly string[]>>;
}

interface State {
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
  gradFn: Record<string, string>;
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
  errorTensor: string | null;
  /** Elements whose label text may have changed in this step (null: all of them). */
  touched: string[] | null;
}

function initial(trace: Trace): State {
  const values: Record<string, ArrayValue> = {};
  const gradFn: Record<string, string> = {};
  for (const t of trace.tensors) {
    values[t.id] = t.value;
    if (t.grad_fn) gradFn[t.id] = t.grad_fn;
  }
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
    gradFn,
    freed: new Set(),
    stdout: "",
    accumulated: {},
  };
}

function clone(s: State): State {
  return {
    ...s,
    visible: new Set(s.visible),
    edgeGrads: { ...s.edgeGrads },
    buffered: { ...s.buffered },
    nodeGrads: { ...s.nodeGrads },
    ran: new Set(s.ran),
    grads: { ...s.grads },
    captured: { ...s.captured },
    values: { ...s.values },
    versions: { ...s.versions },
    gradFn: { ...s.gradFn },
    freed: new Set(s.freed),
    accumulated: { ...s.accumulated },
  };
}

/** Static facts about the graph that apply() needs in O(1). */
class Index {
  /** AccumulateGrad nodes fed by each node's edges (they have no forward event of their own). */
  readonly accumulatorsFedBy = new Map<string, string[]>();

  constructor(readonly lookup: TraceLookup) {
    for (const e of lookup.trace.edges) {
      const target = lookup.nodes.get(e.target);
      if (target?.kind !== "accumulate") continue;
      const list = this.accumulatorsFedBy.get(e.source) ?? [];
      list.push(e.target);
      this.accumulatorsFedBy.set(e.source, list);
    }
  }
}

function show(s: State, id: string, touched: string[] | null): void {
  if (s.visible.has(id)) return;
  s.visible.add(id);
  touched?.push(id);
}

/** AccumulateGrad nodes appear once something that feeds them does, with their leaf. */
function revealAccumulators(s: State, nodeId: string, idx: Index, touched: string[] | null): void {
  for (const acc of idx.accumulatorsFedBy.get(nodeId) ?? []) {
    show(s, acc, touched);
    const variable = idx.lookup.nodes.get(acc)?.variable;
    if (variable) show(s, variable, touched);
  }
}

function spanOfError(e: ErrorInfo): Span | null {
  if (!e.line) return null;
  return {
    line: e.line,
    col: e.col ?? 1,
    end_line: e.end_line ?? e.line,
    end_col: e.end_col ?? (e.col ?? 1) + 1,
  };
}

function apply(ev: TraceEvent, s: State, idx: Index): StepInfo {
  const lookup = idx.lookup;
  const touched: string[] = [];
  const info: StepInfo = {
    active: null,
    activeEdges: [],
    sum: null,
    line: null,
    span: null,
    error: null,
    errorTensor: null,
    touched,
  };
  switch (ev.kind) {
    case "tensor": {
      show(s, ev.tensor, touched);
      info.active = ev.tensor;
      info.line = ev.line ?? null;
      info.span = lookup.tensors.get(ev.tensor)?.span ?? null;
      break;
    }
    case "op": {
      for (const t of ev.tensors) show(s, t, touched);
      if (ev.node) {
        show(s, ev.node, touched);
        const node = lookup.nodes.get(ev.node);
        for (const i of node?.inputs ?? []) if (i) show(s, i, touched);
        info.span = node?.span ?? null;
        revealAccumulators(s, ev.node, idx, touched);
      }
      info.active = ev.node ?? ev.tensors[0] ?? null;
      info.span = info.span ?? lookup.tensors.get(ev.tensors[0] ?? "")?.span ?? null;
      info.line = ev.line ?? info.span?.line ?? null;
      break;
    }
    case "inplace": {
      for (const changed of [ev, ...(ev.aliases ?? [])]) {
        if (changed.value) s.values[changed.tensor] = changed.value; // validate.ts resolved any same_as
        s.versions[changed.tensor] = changed.version;
        touched.push(changed.tensor);
      }
      show(s, ev.tensor, touched);
      if (ev.node) {
        s.gradFn[ev.tensor] = ev.node;
        show(s, ev.node, touched);
        revealAccumulators(s, ev.node, idx, touched);
      }
      info.active = ev.node ?? ev.tensor;
      info.line = ev.line ?? null;
      info.span = (ev.node ? lookup.nodes.get(ev.node)?.span : null) ?? null;
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
    case "grad_set": {
      s.grads[ev.tensor] = ev.grad;
      touched.push(ev.tensor);
      show(s, ev.tensor, touched);
      info.active = ev.tensor;
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
          show(s, r.node, touched);
          touched.push(r.node);
        }
        show(s, r.tensor, touched);
      }
      info.active = ev.roots[0]?.tensor ?? null;
      info.line = ev.line ?? null;
      info.touched = null;
      break;
    }
    case "node_run": {
      s.phase = "backward";
      s.pass = ev.pass;
      show(s, ev.node, touched);
      touched.push(ev.node);
      const grads = ev.received.map((c) => c.grad);
      const total = ev.grad_outputs[0] ?? addValues(grads);
      if (total) s.nodeGrads[ev.node] = total;
      if (grads.length > 1) info.sum = formatSum(grads, total);
      delete s.buffered[ev.node];
      s.ran.add(ev.node);
      for (const sent of ev.sent) {
        s.edgeGrads[sent.edge] = sent.grad;
        info.activeEdges.push(sent.edge);
        touched.push(sent.edge);
        const edge = lookup.edges.get(sent.edge);
        if (!edge) continue;
        show(s, edge.target, touched);
        touched.push(edge.target);
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
      s.accumulated[ev.node] = info.sum.length <= NODE_SUM_CHARS ? info.sum : `grad ${formatValue(ev.after)}`;
      show(s, ev.node, touched);
      show(s, ev.tensor, touched);
      touched.push(ev.node, ev.tensor);
      info.active = ev.tensor;
      info.span = lookup.tensors.get(ev.tensor)?.span ?? null;
      break;
    }
    case "retain_grad": {
      s.grads[ev.tensor] = ev.grad;
      touched.push(ev.tensor);
      info.active = ev.tensor;
      break;
    }
    case "capture": {
      s.captured[ev.tensor] = ev.grad;
      touched.push(ev.tensor);
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
      info.touched = null;
      break;
    }
    case "error": {
      info.error = ev.error;
      info.active = ev.error.node ?? null;
      info.line = ev.error.line ?? null;
      info.span = spanOfError(ev.error);
      info.errorTensor = ev.error.node && ev.error.saved_slot ? lookup.savedTensor(ev.error.node, ev.error.saved_slot) : null;
      break;
    }
    default: {
      const unknown: never = ev;
      throw new Error(`unhandled event ${JSON.stringify(unknown)}`);
    }
  }
  return info;
}

function tensorLabel(s: State, id: string): string[] {
  const v = s.values[id];
  const grad = s.grads[id];
  const captured = s.captured[id];
  let gradLine = "";
  if (grad) gradLine = `grad ${formatValue(grad)}`;
  else if (id in s.grads) gradLine = "grad None";
  else if (captured) gradLine = `returned ${formatValue(captured)}`;
  return [s.visible.has(id) && v ? `= ${formatValue(v)}` : "", gradLine];
}

/** A sum longer than this is shown on its node as the total only (the sum line above the graph
 * spells it out): the node box is as wide as its widest label over the whole run. */
export const NODE_SUM_CHARS = 32;

function nodeLabel(s: State, id: string, kind: string, info: StepInfo): string[] {
  const acc = s.accumulated[id];
  const waiting = s.buffered[id];
  const got = s.nodeGrads[id];
  // The step that sums several contributions shows the sum on the node itself.
  if (info.active === id && info.sum && info.sum.length <= NODE_SUM_CHARS) return [info.sum];
  if (kind === "accumulate" && acc && s.ran.has(id)) return [acc];
  if (waiting) return [`grad ${formatValue(waiting)}`];
  if (got && s.ran.has(id)) return [`grad ${formatValue(got)}`];
  return [""];
}

function edgeLabel(s: State, id: string): string[] {
  const g = s.edgeGrads[id];
  return [id in s.edgeGrads ? (g ? formatValue(g) : "None") : ""];
}

function labelOf(s: State, id: string, lookup: TraceLookup, info: StepInfo): string[] | null {
  if (lookup.tensors.has(id)) return tensorLabel(s, id);
  const n = lookup.nodes.get(id);
  if (n) return nodeLabel(s, id, n.kind, info);
  if (lookup.edges.has(id)) return edgeLabel(s, id);
  return null;
}

function labelsOf(s: State, lookup: TraceLookup, info: StepInfo): Record<string, string[]> {
  const labels: Record<string, string[]> = {};
  for (const t of lookup.trace.tensors) labels[t.id] = tensorLabel(s, t.id);
  for (const n of lookup.trace.nodes) labels[n.id] = nodeLabel(s, n.id, n.kind, info);
  for (const e of lookup.trace.edges) labels[e.id] = edgeLabel(s, e.id);
  return labels;
}

/** Lesson captions by source line: the step whose line has a `# step:` comment shows its text. */
export function captionsByLine(trace: Trace): Map<number, string> {
  const map = new Map<number, string>();
  for (const c of trace.captions) map.set(c.line, c.text);
  return map;
}

function snapshot(
  step: number,
  ev: TraceEvent | null,
  s: State,
  info: StepInfo,
  lookup: TraceLookup,
  captions: ReadonlyMap<number, string>,
): Frame {
  return {
    ...clone(s), // the frame owns its copy of the state, so later steps cannot change it
    step,
    event: ev,
    active: info.active,
    activeEdges: info.activeEdges,
    sum: info.sum,
    narration: narrate(ev, lookup),
    caption: info.line !== null ? (captions.get(info.line) ?? null) : null,
    line: info.line,
    span: info.span,
    error: info.error,
    errorTensor: info.errorTensor,
    labels: labelsOf(s, lookup, info),
  };
}

export interface ReplayOptions {
  /** Keep a copy of the state every this many steps (default: sized so copies hold ~1M entries). */
  checkpointEvery?: number;
  /** Frames kept in the small recently-used cache. */
  cacheSize?: number;
}

/**
 * The timeline of one trace. `frame(i)` rebuilds step i from the nearest checkpoint; stepping forward
 * continues from the last state, so playing is O(1) per step and a seek costs at most one interval.
 */
export class Replay {
  readonly length: number;
  /** Longest text each dynamic label line ever shows, so the layout reserves room once. */
  readonly widths = new Map<string, number[]>();
  readonly checkpointEvery: number;
  private readonly idx: Index;
  private readonly captions: Map<number, string>;
  private readonly infos: StepInfo[] = [];
  private readonly checkpoints = new Map<number, State>();
  private readonly cache = new Map<number, Frame>();
  private readonly cacheSize: number;
  private cursor: { step: number; state: State } | null = null;

  constructor(
    readonly trace: Trace,
    readonly lookup: TraceLookup = new TraceLookup(trace),
    options: ReplayOptions = {},
  ) {
    this.idx = new Index(lookup);
    this.captions = captionsByLine(trace);
    const events = trace.events;
    const elements = trace.tensors.length + trace.nodes.length + trace.edges.length + 1;
    this.checkpointEvery = Math.max(1, options.checkpointEvery ?? Math.max(16, Math.ceil((events.length * elements) / 1_000_000)));
    this.cacheSize = Math.max(1, options.cacheSize ?? 8);
    this.length = Math.max(1, events.length);
    const s = initial(trace);
    events.forEach((ev, i) => {
      const info = apply(ev, s, this.idx);
      this.measure(s, info);
      info.touched = null;
      this.infos.push(info);
      if (i % this.checkpointEvery === 0) this.checkpoints.set(i, clone(s));
    });
    if (events.length === 0) {
      this.infos.push({ active: null, activeEdges: [], sum: null, line: null, span: null, error: trace.error, errorTensor: null, touched: null });
      this.checkpoints.set(0, s);
    }
  }

  private measure(s: State, info: StepInfo): void {
    const ids = info.touched ?? [
      ...this.lookup.trace.tensors.map((t) => t.id),
      ...this.lookup.trace.nodes.map((n) => n.id),
      ...this.lookup.trace.edges.map((e) => e.id),
    ];
    for (const id of ids) {
      const lines = labelOf(s, id, this.lookup, info);
      if (!lines) continue;
      const w = this.widths.get(id) ?? lines.map(() => 0);
      lines.forEach((l, i) => {
        w[i] = Math.max(w[i] ?? 0, l.length);
      });
      this.widths.set(id, w);
    }
  }

  /** The state after step i, from the cursor when it is just behind, else from a checkpoint. */
  private stateAt(i: number): State {
    const cur = this.cursor;
    let state: State;
    let from: number;
    const base = Math.floor(i / this.checkpointEvery) * this.checkpointEvery;
    if (cur && cur.step <= i && cur.step >= base) {
      state = cur.state;
      from = cur.step;
    } else {
      state = clone(this.checkpoints.get(base) ?? initial(this.trace));
      from = base;
    }
    const events = this.trace.events;
    for (let k = from + 1; k <= i; k++) {
      const ev = events[k];
      if (ev) apply(ev, state, this.idx);
    }
    this.cursor = { step: i, state };
    return state;
  }

  frame(step: number): Frame {
    const i = Math.min(Math.max(0, Math.round(step)), this.length - 1);
    const hit = this.cache.get(i);
    if (hit) {
      this.cache.delete(i);
      this.cache.set(i, hit);
      return hit;
    }
    const state = this.stateAt(i);
    const info = this.infos[i]!;
    const ev = this.trace.events[i] ?? null;
    let frame = snapshot(i, ev, state, info, this.lookup, this.captions);
    if (!ev && this.trace.error) frame = { ...frame, narration: `${this.trace.error.type}: ${this.trace.error.message}` };
    this.cache.set(i, frame);
    if (this.cache.size > this.cacheSize) this.cache.delete(this.cache.keys().next().value as number);
    return frame;
  }

  /** Where the player starts: the graph fully built, just before the first backward pass. */
  get start(): number {
    return startIndex(this.trace.events);
  }

  /** Index of the error event, if the run stopped with one. */
  get errorStep(): number | null {
    const i = this.trace.events.findIndex((e) => e.kind === "error");
    return i >= 0 ? i : null;
  }

  /** Number of backward passes (backward() or autograd.grad calls) in the timeline. */
  get passCount(): number {
    return this.trace.events.filter((e) => e.kind === "backward_begin").length;
  }
}

function startIndex(events: readonly (TraceEvent | null)[]): number {
  const first = events.findIndex((e) => e?.kind === "backward_begin");
  if (first > 0) return first - 1;
  if (first === 0) return 0;
  return Math.max(0, events.length - 1);
}

/** Every step of the trace as a frame (for tests and small traces; the app uses Replay). */
export function buildFrames(trace: Trace, lookup: TraceLookup = new TraceLookup(trace)): Frame[] {
  const replay = new Replay(trace, lookup);
  return Array.from({ length: replay.length }, (_, i) => replay.frame(i));
}

/** Where the player starts: the graph fully built, just before the first backward pass. */
export function startStep(frames: readonly Frame[]): number {
  return startIndex(frames.map((f) => f.event));
}

/** The longest text each dynamic label line ever shows, computed from full frames. */
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
