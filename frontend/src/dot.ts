/**
 * Trace to Graphviz DOT with stable ids. Drawn top to bottom in forward order (leaves at the top,
 * the output at the bottom); edges point upwards, the way gradients flow in the backward pass.
 * Large graphs collapse the nodes of one source line into a group box that expands on click.
 */

import { DYNAMIC_LINES } from "./replay";
import { shapeText } from "./format";
import { shownTensors } from "./trace/lookup";
import type { NodeInfo, TensorInfo, Trace } from "./trace/types";

export { shownTensors };

/** Nodes that share a source line, drawn as one box until the user expands it. */
export interface Group {
  /** "group-L<line>" */
  id: string;
  line: number;
  /** Trace ids (grad_fn nodes and their output tensors) inside the group. */
  members: string[];
  /** "MulBackward0 ×150, AddBackward0 ×2" */
  summary: string;
}

export interface Grouping {
  groups: Map<string, Group>;
  /** Group id of each grouped trace id. */
  of: Map<string, string>;
}

export interface DotOptions {
  /** Draw a box per saved tensor slot, attached to its node. */
  saved: boolean;
  /** Longest text of each dynamic label line per element id (from Replay.widths). */
  widths?: ReadonlyMap<string, readonly number[]>;
  /** "TB": forward order top to bottom; "LR": left to right (wide screens). */
  rankdir?: "TB" | "LR";
  /** Groups to draw collapsed (from groupByLine); members of expanded groups are drawn one by one. */
  grouping?: Grouping | null;
  expanded?: ReadonlySet<string>;
}

/** Prefix of SVG element ids; the view strips it to find the trace id. */
export const SVG_ID_PREFIX = "gs-";

/** Over this many drawn elements (nodes and tensor boxes) a graph is collapsed by source line. */
export const COLLAPSE_THRESHOLD = 150;

export function quote(s: string): string {
  return `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;
}

/** Label text: lines joined with DOT's centred line break, each line escaped. */
function label(lines: readonly string[]): string {
  const escaped = lines.map((l) => l.replace(/\\/g, "\\\\").replace(/"/g, '\\"'));
  return `"${escaped.join("\\n")}"`;
}

function attrs(a: Record<string, string | number | undefined>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(a)) {
    if (v === undefined) continue;
    parts.push(k === "label" ? `${k}=${String(v)}` : `${k}=${quote(String(v))}`);
  }
  return `[${parts.join(", ")}]`;
}

/** Layout digits per character of the player's values, which are 12px monospace (style.css; a
 * character 0.6 em wide, a Helvetica digit 0.556 em): in 13pt node labels and in 11pt edge labels. */
const NODE_CHAR_SCALE = 1.1;
const EDGE_CHAR_SCALE = 1.2;

/** Room for the dynamic lines: placeholder text as wide as the longest text the player will show. */
function placeholders(id: string, count: number, widths: DotOptions["widths"], scale: number): string[] {
  const w = widths?.get(id) ?? [];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = w[i] ?? 0;
    out.push(n > 0 ? "0".repeat(Math.ceil(n * scale)) : " ");
  }
  return out;
}

function shapeLabel(t: TensorInfo): string {
  return t.shape.length === 0 ? `${t.dtype} scalar` : `${t.dtype} ${shapeText(t.shape)}`;
}

/** Separates a tensor link's tensor id from the grad_fn node ids it stands for. */
export const LINK_NODE_SEP = "~";

/** Each tensor's grad_fn nodes in the order it had them: at creation, then after in-place changes. */
export function gradFnHistory(trace: Trace): Map<string, string[]> {
  const history = new Map<string, string[]>();
  for (const t of trace.tensors) if (t.grad_fn) history.set(t.id, [t.grad_fn]);
  for (const ev of trace.events) {
    if (ev.kind !== "inplace" || !ev.node) continue;
    const list = history.get(ev.tensor) ?? [];
    if (!list.includes(ev.node)) list.push(ev.node);
    history.set(ev.tensor, list);
  }
  return history;
}

/** Groups of op nodes by source line, or null when the graph is small enough to draw whole. */
export function groupByLine(trace: Trace, threshold = COLLAPSE_THRESHOLD): Grouping | null {
  const tensors = shownTensors(trace);
  if (trace.nodes.length + tensors.length <= threshold) return null;
  const byLine = new Map<number, NodeInfo[]>();
  for (const n of trace.nodes) {
    if (n.kind === "accumulate" || !n.span) continue;
    const list = byLine.get(n.span.line) ?? [];
    list.push(n);
    byLine.set(n.span.line, list);
  }
  const groups = new Map<string, Group>();
  const of = new Map<string, string>();
  const leafShown = new Map(tensors.map((t) => [t.id, t.is_leaf]));
  for (const [line, nodes] of [...byLine.entries()].sort((a, b) => a[0] - b[0])) {
    if (nodes.length < 2) continue;
    const id = `group-L${line}`;
    const members: string[] = [];
    const counts = new Map<string, number>();
    for (const n of nodes) {
      members.push(n.id);
      of.set(n.id, id);
      counts.set(n.name, (counts.get(n.name) ?? 0) + 1);
      for (const o of n.outputs) {
        if (o && leafShown.get(o) === false) {
          members.push(o);
          of.set(o, id);
        }
      }
    }
    const summary = [...counts.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([name, k]) => `${name} ×${k}`)
      .join(", ");
    groups.set(id, { id, line, members, summary: counts.size > 3 ? `${summary}, …` : summary });
  }
  return groups.size > 0 ? { groups, of } : null;
}

/** The dynamic line of a collapsed group during backward. */
export function groupStatus(ran: number, total: number): string {
  return `ran ${ran}/${total}`;
}

function tensorClass(t: TensorInfo): string {
  if (t.is_leaf && t.requires_grad) return "gs-tensor gs-leaf";
  if (t.is_leaf) return "gs-tensor gs-const";
  return "gs-tensor gs-output";
}

function nodeClass(n: NodeInfo): string {
  const pass = n.created_in_pass !== null ? " gs-higher" : "";
  return `gs-node gs-${n.kind}${pass}`;
}

const FILL: Record<string, string> = {
  leaf: "lightblue",
  const: "#eeeeee",
  output: "darkolivegreen1",
  op: "#f4f4f4",
  accumulate: "#dddddd",
  custom: "#ffe9b3",
  saved: "orange",
  group: "#e7e9ff",
};

/** The id drawn for a trace id: itself, or its collapsed group. */
function drawnAs(id: string, options: DotOptions): string {
  const g = options.grouping?.of.get(id);
  return g && !options.expanded?.has(g) ? g : id;
}

/** Label text for the saved slot box of a node. */
function savedLabel(trace: Trace, tensors: ReadonlyMap<string, TensorInfo>, n: NodeInfo, slot: string): string {
  const s = n.saved.find((x) => x.slot === slot);
  const of = s?.tensor ? tensors.get(s.tensor) : undefined;
  const what = of && of.names.length > 0 ? `${slot} = ${of.names.join(" = ")}` : slot;
  const version = s && s.version !== null && s.version !== undefined ? ` v${s.version}` : "";
  const err = trace.error;
  const now = err?.node === n.id && err.saved_slot === slot && err.actual_version != null ? ` (now v${err.actual_version})` : "";
  return what + version + now;
}

export function toDot(trace: Trace, options: DotOptions): string {
  const w = options.widths;
  const out: string[] = [];
  out.push("digraph gradstep {");
  out.push(`  graph ${attrs({ rankdir: options.rankdir ?? "TB", bgcolor: "transparent", nodesep: 0.35, ranksep: 0.45, id: "gs-graph" })};`);
  out.push(`  node ${attrs({ fontname: "Helvetica,Arial,sans-serif", fontsize: 13, shape: "box", style: "rounded,filled", margin: "0.12,0.05" })};`);
  out.push(`  edge ${attrs({ fontname: "Helvetica,Arial,sans-serif", fontsize: 11, dir: "back", arrowsize: 0.7 })};`);

  const tensors = shownTensors(trace);
  const shown = new Set(tensors.map((t) => t.id));
  const tensorById = new Map(trace.tensors.map((t) => [t.id, t]));
  const nodeIds = new Set(trace.nodes.map((n) => n.id));
  const grouping = options.grouping ?? null;
  const collapsed = (id: string): boolean => drawnAs(id, options) !== id;

  if (grouping) {
    for (const g of grouping.groups.values()) {
      if (options.expanded?.has(g.id)) continue;
      const nodes = g.members.filter((m) => nodeIds.has(m)).length;
      const lines = [`line ${g.line}: ${nodes} nodes`, g.summary, "click to expand", "0".repeat(groupStatus(nodes, nodes).length)];
      out.push(`  ${quote(g.id)} ${attrs({ id: SVG_ID_PREFIX + g.id, class: "gs-group", label: label(lines), fillcolor: FILL["group"], style: "rounded,filled,bold" })};`);
    }
  }

  for (const t of tensors) {
    if (collapsed(t.id)) continue;
    const name = t.names.length > 0 ? t.names.join(" = ") : "tensor";
    const lines = [name, shapeLabel(t), ...placeholders(t.id, DYNAMIC_LINES.tensor, w, NODE_CHAR_SCALE)];
    const kind = t.is_leaf ? (t.requires_grad ? "leaf" : "const") : "output";
    out.push(`  ${quote(t.id)} ${attrs({ id: SVG_ID_PREFIX + t.id, class: tensorClass(t), label: label(lines), fillcolor: FILL[kind] })};`);
  }

  for (const n of trace.nodes) {
    if (collapsed(n.id)) continue;
    const lines = [n.name, ...placeholders(n.id, DYNAMIC_LINES.node, w, NODE_CHAR_SCALE)];
    out.push(`  ${quote(n.id)} ${attrs({ id: SVG_ID_PREFIX + n.id, class: nodeClass(n), label: label(lines), fillcolor: FILL[n.kind], style: n.kind === "accumulate" ? "filled" : undefined })};`);
  }

  // Backward edges run consumer -> next function; written next -> consumer so forward order ranks them.
  const groupEdges = new Set<string>();
  for (const e of trace.edges) {
    const from = drawnAs(e.target, options);
    const to = drawnAs(e.source, options);
    if (from === e.target && to === e.source) {
      const lines = [...(e.formula ? [e.formula] : []), ...placeholders(e.id, DYNAMIC_LINES.edge, w, EDGE_CHAR_SCALE)];
      out.push(`  ${quote(e.target)} -> ${quote(e.source)} ${attrs({ id: SVG_ID_PREFIX + e.id, class: "gs-edge", label: label(lines) })};`);
      continue;
    }
    const key = `${from}|${to}`;
    if (from === to || groupEdges.has(key)) continue;
    groupEdges.add(key);
    out.push(`  ${quote(from)} -> ${quote(to)} ${attrs({ id: `${SVG_ID_PREFIX}gedge-${from}-${to}`, class: "gs-edge gs-group-edge" })};`);
  }

  const history = gradFnHistory(trace);
  for (const t of tensors) {
    if (collapsed(t.id)) continue;
    const acc = trace.nodes.find((n) => n.kind === "accumulate" && n.variable === t.id);
    if (acc) {
      out.push(`  ${quote(t.id)} -> ${quote(acc.id)} ${attrs({ id: `${SVG_ID_PREFIX}link-${t.id}`, class: "gs-link", style: "dashed" })};`);
      continue;
    }
    // One link per element the tensor's grad_fn is drawn as over the run (in-place changes move it on);
    // the id lists the nodes it stands for, and the graph shows the one for the current grad_fn.
    const byDrawn = new Map<string, string[]>();
    for (const fn of history.get(t.id) ?? []) {
      if (!nodeIds.has(fn)) continue;
      const drawn = drawnAs(fn, options);
      byDrawn.set(drawn, [...(byDrawn.get(drawn) ?? []), fn]);
    }
    for (const [drawn, fns] of byDrawn) {
      const id = `${SVG_ID_PREFIX}link-${t.id}${LINK_NODE_SEP}${fns.join(LINK_NODE_SEP)}`;
      out.push(`  ${quote(drawn)} -> ${quote(t.id)} ${attrs({ id, class: "gs-link", style: "dashed" })};`);
    }
  }

  // Tensors that need no gradient still feed ops: a dotted line without arrow.
  const inputs = new Set<string>();
  for (const n of trace.nodes) {
    for (const i of n.inputs) {
      if (!i || !shown.has(i)) continue;
      const t = tensorById.get(i);
      if (!t || !t.is_leaf || t.requires_grad) continue;
      const target = drawnAs(n.id, options);
      const key = `${i}|${target}`;
      if (inputs.has(key)) continue;
      inputs.add(key);
      out.push(`  ${quote(i)} -> ${quote(target)} ${attrs({ id: `${SVG_ID_PREFIX}input-${i}-${target}`, class: "gs-input", style: "dotted", dir: "none" })};`);
    }
  }

  // Saved slots: all of them when asked; the one an error names always (it appears at the error step).
  const err = trace.error;
  for (const n of trace.nodes) {
    if (collapsed(n.id)) continue;
    for (const s of n.saved) {
      const isErr = err?.node === n.id && err.saved_slot === s.slot;
      if (!options.saved && !isErr) continue;
      const id = `${n.id}.saved.${s.slot}`;
      const cls = isErr ? "gs-saved gs-error-saved" : "gs-saved";
      out.push(`  ${quote(id)} ${attrs({ id: SVG_ID_PREFIX + id, class: cls, label: label([savedLabel(trace, tensorById, n, s.slot)]), fillcolor: FILL["saved"], fontsize: 11 })};`);
      out.push(`  ${quote(id)} -> ${quote(n.id)} ${attrs({ id: `${SVG_ID_PREFIX}savedlink-${id}`, class: isErr ? "gs-savedlink gs-error-saved" : "gs-savedlink", style: "dotted", dir: "none" })};`);
    }
  }

  out.push("}");
  return out.join("\n");
}
