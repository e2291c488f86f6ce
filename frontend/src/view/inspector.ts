/** The inspector panel: values, saved tensors, formulas and gradients of the selected element. */

import { formatNumber, formatValue, numel, shapeText } from "../format";
import type { Frame } from "../replay";
import type { TraceLookup } from "../trace/lookup";
import type { ArrayValue, EdgeInfo, NodeInfo, SavedInfo, TensorInfo } from "../trace/types";
import { h } from "./dom";

const MAX_CELLS = 64;

/** A value as a table: one row for vectors, rows and columns for matrices, a summary beyond that. */
export function valueTable(v: ArrayValue | null | undefined): HTMLElement {
  if (!v) return h("span", { class: "muted", text: "None" });
  const n = numel(v.shape);
  if (n === 1) return h("code", { text: formatValue(v) });
  const summary = h("div", { class: "muted", text: `shape ${shapeText(v.shape)} ${v.dtype}` });
  if (v.truncated || v.shape.length > 2 || n > MAX_CELLS) {
    const stats = [
      v.min !== undefined && v.min !== null ? `min ${formatNumber(v.min)}` : "",
      v.max !== undefined && v.max !== null ? `max ${formatNumber(v.max)}` : "",
      `mean ${formatValue(v).split("mean ")[1] ?? "?"}`,
    ].filter(Boolean);
    const first = v.data.slice(0, 8).map((d) => formatNumber(d)).join(", ");
    return h("div", {}, summary, h("div", { text: stats.join(" · ") }), h("div", { class: "muted", text: `first: ${first}…` }));
  }
  const cols = v.shape.length === 2 ? (v.shape[1] ?? 1) : n;
  const rows = v.shape.length === 2 ? (v.shape[0] ?? 1) : 1;
  const table = h("table", { class: "values" });
  for (let r = 0; r < rows; r++) {
    const tr = h("tr");
    for (let c = 0; c < cols; c++) tr.append(h("td", { text: formatNumber(v.data[r * cols + c]) }));
    table.append(tr);
  }
  return h("div", {}, summary, table);
}

function row(label: string, value: Node | string): HTMLElement {
  return h("div", { class: "kv" }, h("span", { class: "k", text: label }), typeof value === "string" ? h("span", { text: value }) : value);
}

export class Inspector {
  constructor(private readonly host: HTMLElement) {}

  clear(): void {
    this.host.replaceChildren(h("p", { class: "muted", text: "Select a node or tensor in the graph to inspect it." }));
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
    out.push(h("h4", { text: "value" }), valueTable(frame.values[t.id] ?? t.value));
    if (t.id in frame.grads) out.push(h("h4", { text: ".grad" }), valueTable(frame.grads[t.id]));
    else if (t.is_leaf && t.requires_grad) out.push(row(".grad", "None (not yet accumulated)"));
    if (t.id in frame.captured) out.push(h("h4", { text: "returned by autograd.grad" }), valueTable(frame.captured[t.id]));
    return out;
  }

  private saved(s: SavedInfo, lookup: TraceLookup): HTMLElement {
    const who = s.tensor ? lookup.tensorName(s.tensor) : "";
    const version = s.version !== null && s.version !== undefined ? `version ${s.version}` : "";
    const head = [s.slot, who && `= ${who}`, version && `(${version})`].filter(Boolean).join(" ");
    let value: HTMLElement;
    if (s.value !== null && typeof s.value === "object" && !Array.isArray(s.value)) value = valueTable(s.value);
    else if (Array.isArray(s.value)) value = h("code", { text: `[${s.value.map((d) => formatNumber(d)).join(", ")}]` });
    else if (typeof s.value === "number" || typeof s.value === "boolean") value = h("code", { text: formatNumber(s.value) });
    else value = h("code", { text: s.value ?? "None" });
    return h("div", { class: "saved" }, h("div", { class: "k", text: head }), value);
  }

  private node(n: NodeInfo, frame: Frame, lookup: TraceLookup): HTMLElement[] {
    const out: HTMLElement[] = [h("h3", { text: `${n.name} (${n.id})` })];
    const src = lookup.sourceText(n.span);
    if (src) out.push(row("source", h("code", { text: src })));
    if (n.kind === "accumulate" && n.variable) out.push(row("accumulates into", `${lookup.tensorName(n.variable)}.grad`));
    if (n.created_in_pass !== null) out.push(row("created in", `backward pass ${n.created_in_pass} (create_graph)`));
    if (frame.freed.has(n.id)) out.push(row("saved tensors", "freed after backward"));
    const inputs = n.inputs.map((i, k) => `${lookup.tensorName(i)}: ${n.formulas[k] ?? "no gradient"}`);
    if (inputs.length > 0) {
      out.push(h("h4", { text: "gradient formula per input" }));
      out.push(h("ul", {}, ...inputs.map((t) => h("li", {}, h("code", { text: t })))));
    }
    if (n.saved.length > 0) {
      out.push(h("h4", { text: "saved tensors" }));
      for (const s of n.saved) out.push(this.saved(s, lookup));
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
        const sent = e.id in frame.edgeGrads ? ` → ${formatValue(frame.edgeGrads[e.id])}` : "";
        list.append(h("li", {}, h("code", { text: `${e.formula ?? "?"}` }), ` to ${lookup.destination(e.target)}${sent}`));
      }
      out.push(list);
    }
    return out;
  }

  private edge(e: EdgeInfo, frame: Frame, lookup: TraceLookup): HTMLElement[] {
    const out: HTMLElement[] = [h("h3", { text: `${lookup.nodeName(e.source)} → ${lookup.destination(e.target)}` })];
    out.push(row("formula", h("code", { text: e.formula ?? "?" })));
    out.push(row("input", `#${e.input_nr}`));
    if (e.local) out.push(h("h4", { text: `local derivative (${e.local.kind})` }), valueTable(e.local.value));
    if (e.id in frame.edgeGrads) out.push(h("h4", { text: "gradient sent" }), valueTable(frame.edgeGrads[e.id]));
    return out;
  }
}
