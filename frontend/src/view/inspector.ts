/** The inspector panel: values, saved tensors, formulas and gradients of the selected element. */

import { formatNumber, formatValue, isIntegerDtype, numel, shapeText, toNumber } from "../format";
import type { Frame } from "../replay";
import type { TraceLookup } from "../trace/lookup";
import type { ArrayValue, EdgeInfo, NodeInfo, SavedInfo, TensorInfo } from "../trace/types";
import { h } from "./dom";

/** Up to this many elements a value is a table of numbers; up to HEATMAP_CELLS a heatmap without them. */
const MAX_CELLS = 64;
const HEATMAP_CELLS = 1024;

function maxAbs(v: ArrayValue): number {
  let m = 0;
  for (const d of v.data) {
    const x = Math.abs(toNumber(d));
    if (Number.isFinite(x) && x > m) m = x;
  }
  return m;
}

/** Background for one cell: warm for positive, cool for negative, stronger for larger magnitude. */
function heat(x: number, scale: number): string {
  if (!Number.isFinite(x)) return "background: var(--error-bg)";
  if (scale === 0 || x === 0) return "";
  const pct = Math.round(Math.min(1, Math.abs(x) / scale) * 70);
  const color = x > 0 ? "var(--heat-pos)" : "var(--heat-neg)";
  return `background: color-mix(in srgb, ${color} ${pct}%, transparent)`;
}

function summary(v: ArrayValue): HTMLElement {
  const integer = isIntegerDtype(v.dtype);
  const head = h("div", { class: "muted", text: `shape ${shapeText(v.shape)} ${v.dtype}${v.truncated ? " (summarised by the server)" : ""}` });
  const stats: string[] = [];
  if (v.min !== undefined && v.min !== null) stats.push(`min ${formatNumber(v.min, 4, integer)}`);
  if (v.max !== undefined && v.max !== null) stats.push(`max ${formatNumber(v.max, 4, integer)}`);
  const mean = v.mean ?? null;
  if (mean !== null) stats.push(`mean ${formatNumber(mean)}`);
  else if (v.data.length > 0 && !v.dtype.startsWith("complex")) {
    stats.push(`mean ${formatNumber(v.data.reduce<number>((s, d) => s + toNumber(d), 0) / v.data.length)}`);
  }
  const first = v.data.slice(0, 8).map((d) => formatNumber(d, 4, integer)).join(", ");
  return h("div", { class: "value-summary", "data-testid": "value-summary" }, head, h("div", { text: stats.join(" · ") }), h("div", { class: "muted", text: `first: ${first}…` }));
}

/**
 * A value as the user can read it: a number, a table of numbers shaded like a heatmap, a heatmap of
 * cells for larger matrices, or a summary for big or summarised tensors.
 */
export function valueTable(v: ArrayValue | null | undefined): HTMLElement {
  if (!v) return h("span", { class: "muted", text: "None" });
  const n = numel(v.shape);
  if (n === 1 && v.data.length >= 1) return h("code", { text: formatValue(v) });
  if (v.truncated || v.shape.length > 2 || n > HEATMAP_CELLS || v.data.length < n) return summary(v);
  const cols = v.shape.length === 2 ? (v.shape[1] ?? 1) : n;
  const rows = v.shape.length === 2 ? (v.shape[0] ?? 1) : 1;
  const scale = maxAbs(v);
  const integer = isIntegerDtype(v.dtype);
  const head = h("div", { class: "muted", text: `shape ${shapeText(v.shape)} ${v.dtype}` });
  if (n <= MAX_CELLS) {
    const table = h("table", { class: "values heatmap", "data-testid": "heatmap" });
    for (let r = 0; r < rows; r++) {
      const tr = h("tr");
      for (let c = 0; c < cols; c++) {
        const d = v.data[r * cols + c];
        tr.append(h("td", { text: formatNumber(d, 4, integer), style: heat(toNumber(d), scale) }));
      }
      table.append(tr);
    }
    return h("div", {}, head, table);
  }
  const grid = h("div", { class: "heatgrid", "data-testid": "heatmap", role: "img", style: `grid-template-columns: repeat(${cols}, 1fr)` });
  grid.setAttribute("aria-label", `heatmap of a ${rows} by ${cols} tensor, largest magnitude ${formatNumber(scale)}`);
  for (let i = 0; i < n; i++) {
    const d = v.data[i];
    grid.append(h("span", { style: heat(toNumber(d), scale), title: `[${Math.floor(i / cols)}, ${i % cols}] = ${formatNumber(d, 4, integer)}` }));
  }
  return h("div", {}, head, grid, h("div", { class: "muted", text: `range ±${formatNumber(scale)}; hover a cell for its value` }));
}

function row(label: string, value: Node | string): HTMLElement {
  return h("div", { class: "kv" }, h("span", { class: "k", text: label }), typeof value === "string" ? h("span", { text: value }) : value);
}

export class Inspector {
  constructor(private readonly host: HTMLElement) {}

  clear(): void {
    this.host.replaceChildren(h("p", { class: "muted", text: "Select a node or tensor in the graph (or click the code) to inspect it." }));
  }

  show(id: string | null, frame: Frame, lookup: TraceLookup): void {
    const target = id ?? frame.active;
    if (!target) return this.clear();
    const t = lookup.tensors.get(target);
    const n = lookup.nodes.get(target);
    const e = lookup.edges.get(target);
    if (t) this.host.replaceChildren(...this.tensor(t, frame, lookup));
    else if (n) this.host.replaceChildren(...this.node(n, frame, lookup));
    else if (e) this.host.replaceChildren(...this.edge(e, frame, lookup));
    else this.clear();
  }

  private tensor(t: TensorInfo, frame: Frame, lookup: TraceLookup): HTMLElement[] {
    const out: HTMLElement[] = [h("h3", { text: `${lookup.tensorName(t.id)} (${t.id})` })];
    out.push(row("shape", `${shapeText(t.shape)} ${t.dtype}`));
    out.push(row("requires_grad", String(t.requires_grad)));
    out.push(row("is_leaf", String(t.is_leaf)));
    if (t.grad_fn) out.push(row("grad_fn", lookup.nodeName(t.grad_fn)));
    if (frame.versions[t.id] !== undefined) out.push(row("version", String(frame.versions[t.id])));
    if (frame.error && frame.errorTensor === t.id) {
      out.push(h("p", { class: "inspector-error", text: `Saved at version ${frame.error.expected_version ?? "?"}, now at version ${frame.error.actual_version ?? "?"}: an in-place change overwrote the value backward needs.` }));
    }
    out.push(h("h4", { text: "value" }), valueTable(frame.values[t.id] ?? t.value));
    if (t.id in frame.grads) out.push(h("h4", { text: ".grad" }), valueTable(frame.grads[t.id]));
    else if (t.is_leaf && t.requires_grad) out.push(row(".grad", "None (not yet accumulated)"));
    if (t.id in frame.captured) out.push(h("h4", { text: "returned by autograd.grad" }), valueTable(frame.captured[t.id]));
    return out;
  }

  private saved(n: NodeInfo, s: SavedInfo, frame: Frame, lookup: TraceLookup): HTMLElement {
    const who = s.tensor ? lookup.tensorName(s.tensor) : "";
    const version = s.version !== null && s.version !== undefined ? `version ${s.version}` : "";
    const head = [s.slot, who && `= ${who}`, version && `(${version})`].filter(Boolean).join(" ");
    let value: HTMLElement;
    if (s.value !== null && typeof s.value === "object" && !Array.isArray(s.value)) value = valueTable(s.value);
    // Saved plain numbers are mostly dims, sizes, flags and int options (reduction, ignore_index):
    // whole numbers print as integers, as PyTorch prints `_saved_dim` or `_saved_alpha`.
    else if (Array.isArray(s.value)) value = h("code", { text: `[${s.value.map((d) => formatNumber(d, 4, true)).join(", ")}]` });
    else if (typeof s.value === "number" || typeof s.value === "boolean") value = h("code", { text: formatNumber(s.value, 4, true) });
    else if (s.tensor) value = valueTable(frame.values[s.tensor]);
    else value = h("code", { text: s.value ?? "None" });
    const isErr = frame.error?.node === n.id && frame.error.saved_slot === s.slot;
    const box = h("div", { class: isErr ? "saved is-error" : "saved" }, h("div", { class: "k", text: head }), value);
    if (isErr) box.append(h("div", { class: "inspector-error", text: `expected version ${frame.error?.expected_version ?? "?"}, found version ${frame.error?.actual_version ?? "?"}` }));
    return box;
  }

  private node(n: NodeInfo, frame: Frame, lookup: TraceLookup): HTMLElement[] {
    const out: HTMLElement[] = [h("h3", { text: `${n.name} (${n.id})` })];
    const src = lookup.sourceText(n.span);
    if (src) out.push(row("source", h("code", { text: src })));
    if (n.kind === "accumulate" && n.variable) out.push(row("accumulates into", `${lookup.tensorName(n.variable)}.grad`));
    if (n.created_in_pass !== null) out.push(row("created in", `backward pass ${n.created_in_pass} (create_graph)`));
    if (frame.freed.has(n.id)) out.push(row("saved tensors", "freed after backward"));
    if (frame.error?.node === n.id) out.push(h("p", { class: "inspector-error", text: `${frame.error.type}: ${frame.error.message}` }));
    // The op's output, also when the snippet never named it (an intermediate tensor).
    for (const o of n.outputs) {
      if (!o) continue;
      const t = lookup.tensors.get(o);
      if (!t) continue;
      const name = t.names.length > 0 ? t.names.join(" = ") : "unnamed intermediate";
      out.push(h("h4", { text: `output: ${name} (${o})` }), valueTable(frame.visible.has(o) ? (frame.values[o] ?? t.value) : null));
    }
    const inputs = n.inputs.map((i, k) => `${lookup.tensorName(i)}: ${n.formulas[k] ?? "no gradient"}`);
    if (inputs.length > 0) {
      out.push(h("h4", { text: "gradient formula per input" }));
      out.push(h("ul", {}, ...inputs.map((t) => h("li", {}, h("code", { text: t })))));
    }
    if (n.saved.length > 0) {
      out.push(h("h4", { text: "saved tensors" }));
      for (const s of n.saved) out.push(this.saved(n, s, frame, lookup));
    }
    const waiting = frame.buffered[n.id];
    const got = frame.nodeGrads[n.id];
    if (waiting) out.push(h("h4", { text: "gradient waiting (running total)" }), valueTable(waiting));
    else if (got && frame.ran.has(n.id)) out.push(h("h4", { text: "gradient received" }), valueTable(got));
    if (frame.active === n.id && frame.sum) out.push(row("sum", h("code", { text: frame.sum })));
    const outgoing = lookup.trace.edges.filter((e) => e.source === n.id);
    if (outgoing.length > 0) {
      out.push(h("h4", { text: "sends" }));
      const list = h("ul");
      for (const e of outgoing) {
        const numbers = this.withNumbers(e, frame);
        list.append(h("li", {}, h("code", { text: e.formula ?? "?" }), ` to ${lookup.destination(e.target)}`, numbers ? h("div", {}, h("code", { text: numbers })) : null));
      }
      out.push(list);
    }
    return out;
  }

  /** "= 1.0 × 2.0 = 2.0": the gradient in, times the local derivative, is what was sent. */
  private withNumbers(e: EdgeInfo, frame: Frame): string | null {
    if (!(e.id in frame.edgeGrads)) return null;
    const sent = frame.edgeGrads[e.id] ?? null;
    const grad = frame.nodeGrads[e.source];
    if (e.local?.kind === "elementwise" && grad && numel(grad.shape) <= 4 && numel(e.local.value.shape) <= 4) {
      const sameShape = grad.shape.join() === (sent?.shape ?? []).join();
      const reduced = sameShape ? "" : ", summed to the input's shape";
      return `= ${formatValue(grad)} × ${formatValue(e.local.value)}${reduced} = ${formatValue(sent)}`;
    }
    return `= ${formatValue(sent)}`;
  }

  private edge(e: EdgeInfo, frame: Frame, lookup: TraceLookup): HTMLElement[] {
    const out: HTMLElement[] = [h("h3", { text: `${lookup.nodeName(e.source)} → ${lookup.destination(e.target)}` })];
    out.push(row("formula", h("code", { text: e.formula ?? "?" })));
    const numbers = this.withNumbers(e, frame);
    if (numbers) out.push(row("with numbers", h("code", { text: `${e.formula ?? "grad"} ${numbers}` })));
    out.push(row("input", `#${e.input_nr}`));
    if (e.local?.kind === "jacobian") {
      const [m, k] = e.local.value.shape;
      out.push(h("h4", { text: `Jacobian (${m ?? "?"} output × ${k ?? "?"} input elements); sent = Jᵀ · grad` }), valueTable(e.local.value));
    } else if (e.local) {
      out.push(h("h4", { text: "local derivative (elementwise)" }), valueTable(e.local.value));
    }
    const grad = frame.nodeGrads[e.source];
    if (grad && e.id in frame.edgeGrads) out.push(h("h4", { text: "gradient arriving at the node" }), valueTable(grad));
    if (e.id in frame.edgeGrads) out.push(h("h4", { text: "gradient sent" }), valueTable(frame.edgeGrads[e.id]));
    return out;
  }
}
