/**
 * Trace to Graphviz DOT with stable ids. Drawn top to bottom in forward order (leaves at the top,
 * the output at the bottom); edges point upwards, the way gradients flow in the backward pass.
 */

import { DYNAMIC_LINES } from "./replay";
import { shapeText } from "./format";
import type { NodeInfo, TensorInfo, Trace } from "./trace/types";

export interface DotOptions {
  /** Draw a box per saved tensor slot, attached to its node. */
  saved: boolean;
  /** Longest text of each dynamic label line per element id (from replay.labelWidths). */
  widths?: ReadonlyMap<string, readonly number[]>;
  /** "TB": forward order top to bottom; "LR": left to right (wide screens). */
  rankdir?: "TB" | "LR";
}

/** Prefix of SVG element ids; the view strips it to find the trace id. */
export const SVG_ID_PREFIX = "gs-";

export type GraphElementKind = "tensor" | "node" | "edge" | "link" | "saved";

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

/** Room for the dynamic lines: placeholder text as wide as the longest text the player will show. */
function placeholders(id: string, count: number, widths: DotOptions["widths"]): string[] {
  const w = widths?.get(id) ?? [];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = w[i] ?? 0;
    out.push(n > 0 ? "0".repeat(n) : " ");
  }
  return out;
}

function shapeLabel(t: TensorInfo): string {
  return t.shape.length === 0 ? `${t.dtype} scalar` : `${t.dtype} ${shapeText(t.shape)}`;
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
};

export function toDot(trace: Trace, options: DotOptions): string {
  const w = options.widths;
  const out: string[] = [];
  out.push("digraph gradstep {");
  out.push(`  graph ${attrs({ rankdir: options.rankdir ?? "TB", bgcolor: "transparent", nodesep: 0.35, ranksep: 0.45, id: "gs-graph" })};`);
  out.push(`  node ${attrs({ fontname: "Helvetica,Arial,sans-serif", fontsize: 13, shape: "box", style: "rounded,filled", margin: "0.12,0.05" })};`);
  out.push(`  edge ${attrs({ fontname: "Helvetica,Arial,sans-serif", fontsize: 11, dir: "back", arrowsize: 0.7 })};`);

  const tensors = shownTensors(trace);
  const shown = new Set(tensors.map((t) => t.id));
  const nodeIds = new Set(trace.nodes.map((n) => n.id));

  for (const t of tensors) {
    const name = t.names.length > 0 ? t.names.join(" = ") : "tensor";
    const lines = [name, shapeLabel(t), ...placeholders(t.id, DYNAMIC_LINES.tensor, w)];
    const kind = t.is_leaf ? (t.requires_grad ? "leaf" : "const") : "output";
    out.push(`  ${quote(t.id)} ${attrs({ id: SVG_ID_PREFIX + t.id, class: tensorClass(t), label: label(lines), fillcolor: FILL[kind] })};`);
  }

  for (const n of trace.nodes) {
    const lines = [n.name, ...placeholders(n.id, DYNAMIC_LINES.node, w)];
    out.push(`  ${quote(n.id)} ${attrs({ id: SVG_ID_PREFIX + n.id, class: nodeClass(n), label: label(lines), fillcolor: FILL[n.kind], style: n.kind === "accumulate" ? "filled" : undefined })};`);
  }

  // Backward edges run consumer -> next function; written next -> consumer so forward order ranks them.
  for (const e of trace.edges) {
    const lines = [...(e.formula ? [e.formula] : []), ...placeholders(e.id, DYNAMIC_LINES.edge, w)];
    out.push(`  ${quote(e.target)} -> ${quote(e.source)} ${attrs({ id: SVG_ID_PREFIX + e.id, class: "gs-edge", label: label(lines) })};`);
  }

  for (const t of tensors) {
    const acc = trace.nodes.find((n) => n.kind === "accumulate" && n.variable === t.id);
    if (acc) {
      out.push(`  ${quote(t.id)} -> ${quote(acc.id)} ${attrs({ id: `${SVG_ID_PREFIX}link-${t.id}`, class: "gs-link", style: "dashed" })};`);
    } else if (t.grad_fn && nodeIds.has(t.grad_fn)) {
      out.push(`  ${quote(t.grad_fn)} -> ${quote(t.id)} ${attrs({ id: `${SVG_ID_PREFIX}link-${t.id}`, class: "gs-link", style: "dashed" })};`);
    }
  }

  // Tensors that need no gradient still feed ops: a dotted line without arrow.
  for (const n of trace.nodes) {
    const seen = new Set<string>();
    for (const i of n.inputs) {
      if (!i || seen.has(i) || !shown.has(i)) continue;
      seen.add(i);
      const t = trace.tensors.find((x) => x.id === i);
      if (t && t.is_leaf && !t.requires_grad) {
        out.push(`  ${quote(i)} -> ${quote(n.id)} ${attrs({ id: `${SVG_ID_PREFIX}input-${i}-${n.id}`, class: "gs-input", style: "dotted", dir: "none" })};`);
      }
    }
  }

  if (options.saved) {
    for (const n of trace.nodes) {
      for (const s of n.saved) {
        const id = `${n.id}.saved.${s.slot}`;
        const of = s.tensor ? trace.tensors.find((t) => t.id === s.tensor) : undefined;
        const what = of && of.names.length > 0 ? `${s.slot} = ${of.names.join(" = ")}` : s.slot;
        const version = s.version !== null && s.version !== undefined ? ` v${s.version}` : "";
        out.push(`  ${quote(id)} ${attrs({ id: SVG_ID_PREFIX + id, class: "gs-saved", label: label([what + version]), fillcolor: FILL["saved"], fontsize: 11 })};`);
        out.push(`  ${quote(id)} -> ${quote(n.id)} ${attrs({ id: `${SVG_ID_PREFIX}savedlink-${id}`, class: "gs-savedlink", style: "dotted", dir: "none" })};`);
      }
    }
  }

  out.push("}");
  return out.join("\n");
}

/** Kind of a trace id as drawn: tensors start with t, nodes with n, edges with e. */
export function elementKind(id: string, trace: Trace): GraphElementKind | null {
  if (trace.tensors.some((t) => t.id === id)) return "tensor";
  if (trace.nodes.some((n) => n.id === id)) return "node";
  if (trace.edges.some((e) => e.id === id)) return "edge";
  if (id.startsWith("link-")) return "link";
  if (id.includes(".saved.")) return "saved";
  return null;
}
