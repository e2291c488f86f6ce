/** The graph view: shows Graphviz's SVG once per trace, then applies frames by toggling classes and text. */

import { select } from "d3-selection";
import { zoom, zoomIdentity, type ZoomBehavior } from "d3-zoom";
import { DYNAMIC_LINES, type Frame } from "../replay";
import { SVG_ID_PREFIX } from "../dot";
import type { Trace } from "../trace/types";

interface Element {
  id: string;
  kind: "tensor" | "node" | "edge" | "other";
  g: SVGGElement;
  dynamic: SVGTextElement[];
}

const FRAME_CLASSES = [
  "is-future",
  "is-active",
  "is-buffered",
  "is-ran",
  "is-freed",
  "has-grad",
  "is-selected",
  "is-error",
] as const;

export class GraphView {
  private elements = new Map<string, Element>();
  private svg: SVGSVGElement | null = null;
  private zoomer: ZoomBehavior<SVGSVGElement, unknown> | null = null;
  private selected: string | null = null;

  constructor(
    private readonly host: HTMLElement,
    private readonly onSelect: (id: string | null) => void,
  ) {}

  clear(message: string): void {
    this.elements.clear();
    this.svg = null;
    this.host.replaceChildren();
    const p = document.createElement("p");
    p.className = "graph-empty";
    p.textContent = message;
    this.host.append(p);
  }

  /** Puts a freshly laid-out SVG in place and indexes its elements by trace id. */
  show(svgText: string, trace: Trace): void {
    const doc = new DOMParser().parseFromString(svgText, "image/svg+xml");
    const svg = doc.documentElement as unknown as SVGSVGElement;
    if (svg.nodeName !== "svg") throw new Error("Graphviz returned no SVG");
    // Never blow a small graph up past its natural size; shrink a big one to fit.
    const natural = (attr: string): number => parseFloat(svg.getAttribute(attr) ?? "") * (4 / 3);
    const w = natural("width");
    const hgt = natural("height");
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    if (w > 0 && hgt > 0) svg.setAttribute("style", `max-width:${Math.ceil(w * 1.25)}px;max-height:${Math.ceil(hgt * 1.25)}px`);
    svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
    svg.setAttribute("role", "group");
    svg.setAttribute("aria-label", "Autograd graph");
    const adopted = document.importNode(svg, true);
    this.host.replaceChildren(adopted);
    this.svg = adopted;
    this.index(adopted, trace);
    this.setupZoom(adopted);
    this.selected = null;
  }

  private index(svg: SVGSVGElement, trace: Trace): void {
    this.elements.clear();
    const tensors = new Set(trace.tensors.map((t) => t.id));
    const nodes = new Map(trace.nodes.map((n) => [n.id, n]));
    const edges = new Set(trace.edges.map((e) => e.id));
    for (const g of Array.from(svg.querySelectorAll<SVGGElement>("g.node, g.edge"))) {
      if (!g.id.startsWith(SVG_ID_PREFIX)) continue;
      const id = g.id.slice(SVG_ID_PREFIX.length);
      const kind = tensors.has(id) ? "tensor" : nodes.has(id) ? "node" : edges.has(id) ? "edge" : "other";
      const texts = Array.from(g.querySelectorAll<SVGTextElement>("text"));
      const count = kind === "other" ? 0 : DYNAMIC_LINES[kind];
      const dynamic = texts.slice(texts.length - count);
      for (const t of dynamic) {
        t.textContent = "";
        t.classList.add("gs-dyn");
      }
      const title = g.querySelector("title");
      if (kind === "tensor" || kind === "node") {
        g.setAttribute("data-node-id", id);
        g.setAttribute("tabindex", "0");
        g.setAttribute("role", "button");
        const name = texts[0]?.textContent ?? id;
        g.setAttribute("aria-label", kind === "tensor" ? `tensor ${name}` : `node ${name}`);
        if (title) title.textContent = `${name} (${id})`;
        g.addEventListener("click", (e) => {
          e.stopPropagation();
          this.select(id);
        });
        g.addEventListener("keydown", (e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            this.select(id);
          }
        });
      } else if (kind === "edge") {
        g.setAttribute("data-edge-id", id);
        if (title) title.textContent = texts[0]?.textContent ?? id;
        g.addEventListener("click", (e) => {
          e.stopPropagation();
          this.select(id);
        });
      } else if (title) {
        title.textContent = "";
      }
      this.elements.set(id, { id, kind, g, dynamic });
    }
    svg.addEventListener("click", () => this.select(null));
  }

  select(id: string | null): void {
    if (this.selected) this.elements.get(this.selected)?.g.classList.remove("is-selected");
    this.selected = id;
    if (id) this.elements.get(id)?.g.classList.add("is-selected");
    this.onSelect(id);
  }

  /** Applies one frame: classes and label text only, never a new layout. */
  apply(frame: Frame): void {
    const activeEdges = new Set(frame.activeEdges);
    for (const el of this.elements.values()) {
      const c = el.g.classList;
      for (const name of FRAME_CLASSES) if (name !== "is-selected") c.remove(name);
      const id = el.id;
      if (el.kind === "tensor" || el.kind === "node") {
        if (!frame.visible.has(id)) c.add("is-future");
        if (frame.active === id) c.add("is-active");
        if (id in frame.buffered) c.add("is-buffered");
        if (frame.ran.has(id)) c.add("is-ran");
        if (frame.freed.has(id)) c.add("is-freed");
        if (frame.grads[id] || frame.captured[id]) c.add("has-grad");
        if (frame.error?.node === id) c.add("is-error");
      } else if (el.kind === "edge") {
        if (activeEdges.has(id)) c.add("is-active");
        if (id in frame.edgeGrads) c.add("has-grad");
      }
      const lines = frame.labels[id];
      el.dynamic.forEach((t, i) => {
        const text = lines?.[i] ?? "";
        if (t.textContent !== text) t.textContent = text;
      });
    }
    this.markLinks(frame);
  }

  /** Dashed tensor links light up when gradient reaches a leaf or the seed leaves the output. */
  private markLinks(frame: Frame): void {
    if (!this.svg) return;
    for (const g of Array.from(this.svg.querySelectorAll<SVGGElement>("g.gs-link"))) {
      const tensor = g.id.slice(`${SVG_ID_PREFIX}link-`.length);
      const live =
        (frame.event?.kind === "accumulate" && frame.event.tensor === tensor) ||
        (frame.event?.kind === "backward_begin" && frame.event.roots.some((r) => r.tensor === tensor));
      g.classList.toggle("is-active", live);
      g.classList.toggle("is-future", !frame.visible.has(tensor));
    }
  }

  private setupZoom(svg: SVGSVGElement): void {
    const root = svg.querySelector<SVGGElement>("g.graph");
    if (!root) return;
    const wrapper = document.createElementNS("http://www.w3.org/2000/svg", "g");
    wrapper.setAttribute("class", "gs-zoom");
    root.replaceWith(wrapper);
    wrapper.append(root);
    const z = zoom<SVGSVGElement, unknown>()
      .scaleExtent([0.2, 8])
      .on("zoom", (e: { transform: { toString(): string } }) => {
        wrapper.setAttribute("transform", e.transform.toString());
      });
    select(svg).call(z).on("dblclick.zoom", null);
    this.zoomer = z;
  }

  zoomBy(factor: number): void {
    if (this.svg && this.zoomer) select(this.svg).call(this.zoomer.scaleBy, factor);
  }

  /** Back to the whole graph in view (the SVG's viewBox already fits it). */
  fit(): void {
    if (this.svg && this.zoomer) select(this.svg).call(this.zoomer.transform, zoomIdentity);
  }
}
