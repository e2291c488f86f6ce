/** A training loop's timeline split into iterations: the steps and graph elements of each backward pass. */

import { gradFnHistory } from "./dot";
import { shownTensors } from "./trace/lookup";
import type { Trace } from "./trace/types";

/** Steps that end with one backward pass (or trail after the last one), inclusive. */
export interface Segment {
  first: number;
  last: number;
  /** The pass these steps end with; null for steps after the last pass. */
  pass: number | null;
  /** Step of the pass's backward_begin, if it is in this segment. */
  begin: number | null;
  /** Whether the pass's steps were recorded (a summarised pass has no node_run events). */
  recorded: boolean;
}

/** One iteration: what the graph view draws while the player is at one of its steps. */
export interface IterationWindow {
  /** 0-based position among the windows. */
  index: number;
  first: number;
  last: number;
  /** Its own pass, then any later passes with nothing to draw (summarised ones) merged into it. */
  segments: Segment[];
  /** Trace ids of the nodes and tensors drawn. */
  ids: ReadonlySet<string>;
}

interface RawSegment extends Segment {
  created: Set<string>;
  ran: Set<string>;
  /** Tensors the segment's steps created or seeded a pass with. */
  tensors: Set<string>;
}

/** Cuts the timeline after each backward_end; what follows the last one is a segment of its own. */
function segments(trace: Trace): RawSegment[] {
  const out: RawSegment[] = [];
  let current: RawSegment | null = null;
  const events = trace.events;
  events.forEach((ev, step) => {
    current ??= { first: step, last: step, pass: null, begin: null, recorded: false, created: new Set(), ran: new Set(), tensors: new Set() };
    current.last = step;
    switch (ev.kind) {
      case "tensor":
        current.tensors.add(ev.tensor);
        break;
      case "op":
        if (ev.node) current.created.add(ev.node);
        for (const t of ev.tensors) current.tensors.add(t);
        break;
      case "inplace":
        if (ev.node) current.created.add(ev.node);
        break;
      case "backward_begin":
        current.pass = ev.pass;
        current.begin = step;
        for (const r of ev.roots) current.tensors.add(r.tensor);
        break;
      case "node_run":
        current.ran.add(ev.node);
        current.recorded = true;
        break;
      case "accumulate":
        if (ev.node) current.ran.add(ev.node);
        break;
      case "backward_end":
        current.pass = ev.pass;
        out.push(current);
        current = null;
        break;
    }
  });
  if (current) out.push(current);
  return out;
}

/**
 * The iterations of a loop that builds a new graph for each backward pass, or null when the graph is
 * best drawn whole: fewer than two windows, or passes that share nodes (retain_graph, double backward).
 */
export function iterationWindows(trace: Trace): IterationWindow[] | null {
  const groups: RawSegment[][] = [];
  for (const seg of segments(trace)) {
    const last = groups[groups.length - 1];
    if (last && seg.created.size === 0 && seg.ran.size === 0) last.push(seg);
    else groups.push([seg]);
  }
  if (groups.length < 2) return null;

  const windowOfNode = new Map<string, number>();
  groups.forEach((segs, w) => {
    for (const s of segs) for (const n of s.created) if (!windowOfNode.has(n)) windowOfNode.set(n, w);
  });
  const accumulators = new Set(trace.nodes.filter((n) => n.kind === "accumulate").map((n) => n.id));
  const ranIn = new Map<string, number>();
  for (const [w, segs] of groups.entries()) {
    for (const s of segs) {
      for (const n of s.ran) {
        if (accumulators.has(n)) continue;
        if ((windowOfNode.get(n) ?? w) !== w || (ranIn.get(n) ?? w) !== w) return null;
        ranIn.set(n, w);
      }
    }
  }

  const drawn = drawnIds(trace);
  return groups.map((segs, index) => ({
    index,
    first: segs[0]!.first,
    last: segs[segs.length - 1]!.last,
    segments: segs.map(({ first, last, pass, begin, recorded }) => ({ first, last, pass, begin, recorded })),
    ids: drawn(segs),
  }));
}

/** What a window draws: its nodes, the AccumulateGrad nodes they feed, and the shown tensors around them. */
function drawnIds(trace: Trace): (segs: RawSegment[]) => Set<string> {
  const nodes = new Map(trace.nodes.map((n) => [n.id, n]));
  const accumulatorTargets = new Map<string, string[]>();
  for (const e of trace.edges) {
    if (nodes.get(e.target)?.kind !== "accumulate") continue;
    accumulatorTargets.set(e.source, [...(accumulatorTargets.get(e.source) ?? []), e.target]);
  }
  const shown = shownTensors(trace);
  const history = gradFnHistory(trace);
  return (segs) => {
    const ids = new Set<string>();
    for (const s of segs) for (const n of [...s.created, ...s.ran]) ids.add(n);
    for (const n of [...ids]) for (const acc of accumulatorTargets.get(n) ?? []) ids.add(acc);
    const created = new Set(segs.flatMap((s) => [...s.tensors]));
    const touching = new Set<string>();
    for (const id of ids) {
      const n = nodes.get(id);
      if (!n) continue;
      if (n.variable) touching.add(n.variable);
      for (const i of n.inputs) if (i) touching.add(i);
      for (const o of n.outputs) if (o) touching.add(o);
    }
    for (const t of shown) {
      const fromHere = (history.get(t.id) ?? []).some((fn) => ids.has(fn));
      if (fromHere || touching.has(t.id) || created.has(t.id)) ids.add(t.id);
    }
    return ids;
  };
}

/** The window a step belongs to (steps past the end belong to the last one). */
export function windowAt(windows: readonly IterationWindow[], step: number): IterationWindow {
  let lo = 0;
  let hi = windows.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (windows[mid]!.last < step) lo = mid + 1;
    else hi = mid;
  }
  return windows[lo]!;
}

/** The trace cut down to one window's elements, for drawing. */
export function windowTrace(trace: Trace, window: IterationWindow): Trace {
  const ids = window.ids;
  return {
    ...trace,
    tensors: trace.tensors.filter((t) => ids.has(t.id)),
    nodes: trace.nodes.filter((n) => ids.has(n.id)),
    edges: trace.edges.filter((e) => ids.has(e.source) && ids.has(e.target)),
  };
}

/** "iteration 3 of 21", and a word when the step's backward pass was summarised (not drawn). */
export function iterationLabel(windows: readonly IterationWindow[], step: number): string {
  const w = windowAt(windows, step);
  const text = `iteration ${w.index + 1} of ${windows.length}`;
  const seg = w.segments.find((s) => step >= s.first && step <= s.last) ?? w.segments[0]!;
  const merged = seg !== w.segments[0];
  if (seg.pass === null || seg.recorded || (!merged && (seg.begin === null || step < seg.begin))) return text;
  return `${text} · backward ${seg.pass} summarised, not drawn`;
}

/** Steps where backward passes begin, in order. */
export function passStarts(trace: Trace): number[] {
  const out: number[] = [];
  trace.events.forEach((ev, step) => {
    if (ev.kind === "backward_begin") out.push(step);
  });
  return out;
}

/** The first pass start after `step` (PageDown), or null. */
export function nextPassStart(starts: readonly number[], step: number): number | null {
  return starts.find((s) => s > step) ?? null;
}

/** The last pass start before `step` (PageUp), or null. */
export function previousPassStart(starts: readonly number[], step: number): number | null {
  for (let i = starts.length - 1; i >= 0; i--) if (starts[i]! < step) return starts[i]!;
  return null;
}
