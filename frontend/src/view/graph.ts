/** The graph view: shows Graphviz's SVG once per trace, then applies frames by toggling classes and text. */

import { select } from "d3-selection";
import { zoom, zoomIdentity, type ZoomBehavior } from "d3-zoom";
import { DYNAMIC_LINES, type Frame } from "../replay";
import { LINK_NODE_SEP, SVG_ID_PREFIX, groupStatus, type Grouping } from "../dot";
import { formatValue } from "../format";
import type { Trace } from "../trace/types";

type Kind = "tensor" | "node" | "edge" | "group" | "group-edge" | "error-saved" | "other";

interface Element {
  id: string;
  kind: Kind;
  g: SVGGElement;
  dynamic: SVGTextElement[];
  /** Current frame classes, so apply() only touches what changes. */
  classes: string;
}

const SVG_NS = "http://www.w3.org/2000/svg";
const TRAVEL_MS = 700;

export interface GraphCallbacks {
  onSelect: (id: string | null) => void;
  /** A collapsed group was clicked. */
  onExpand: (groupId: string) => void;
}

export class GraphView {
  private elements = new Map<string, Element>();
  private svg: SVGSVGElement | null = null;
  private zoomer: ZoomBehavior<SVGSVGElement, unknown> | null = null;
  private selected: string | null = null;
  private grouping: Grouping | null = null;
  private expanded: ReadonlySet<string> = new Set();
  /** Trace edge id -> drawn edge id (itself, or the group edge standing for it). */
  private edgeDrawnAs = new Map<string, string>();
  private edgeEnds = new Map<string, [string, string]>();
  private groupMembers = new Map<string, { nodes: string[]; all: Set<string> }>();
  private geo: { centers: Map<string, { x: number; y: number }>; base: DOMMatrix; host: DOMRect } | null = null;
  private zoomState = { k: 1, x: 0, y: 0 };
  private readonly resize =
    typeof ResizeObserver === "function" ? new ResizeObserver(() => (this.geo = null)) : null;
  private readonly reducedMotion =
    typeof matchMedia === "function" ? matchMedia("(prefers-reduced-motion: reduce)") : null;

  constructor(
    private readonly host: HTMLElement,
    private readonly callbacks: GraphCallbacks,
  ) {
    this.resize?.observe(this.host);
    if (typeof window !== "undefined") window.addEventListener("scroll", () => (this.geo = null), { passive: true });
  }

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
  show(svgText: string, trace: Trace, grouping: Grouping | null = null, expanded: ReadonlySet<string> = new Set()): void {
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
    this.grouping = grouping;
    this.expanded = expanded;
    this.index(adopted, trace);
    this.geo = null;
    this.zoomState = { k: 1, x: 0, y: 0 };
    this.setupZoom(adopted);
    this.selected = null;
  }

  private drawnAs(id: string): string {
    const g = this.grouping?.of.get(id);
    return g && !this.expanded.has(g) ? g : id;
  }

  private index(svg: SVGSVGElement, trace: Trace): void {
    this.elements.clear();
    this.edgeDrawnAs.clear();
    this.groupMembers.clear();
    const tensors = new Set(trace.tensors.map((t) => t.id));
    const nodes = new Set(trace.nodes.map((n) => n.id));
    const edges = new Set(trace.edges.map((e) => e.id));
    this.edgeEnds.clear();
    for (const e of trace.edges) {
      this.edgeEnds.set(e.id, [e.source, e.target]);
      const from = this.drawnAs(e.target);
      const to = this.drawnAs(e.source);
      this.edgeDrawnAs.set(e.id, from === e.target && to === e.source ? e.id : `gedge-${from}-${to}`);
    }
    for (const g of this.grouping?.groups.values() ?? []) {
      this.groupMembers.set(g.id, { nodes: g.members.filter((m) => nodes.has(m)), all: new Set(g.members) });
    }
    for (const g of Array.from(svg.querySelectorAll<SVGGElement>("g.node, g.edge"))) {
      if (!g.id.startsWith(SVG_ID_PREFIX)) continue;
      const id = g.id.slice(SVG_ID_PREFIX.length);
      let kind: Kind = "other";
      if (tensors.has(id)) kind = "tensor";
      else if (nodes.has(id)) kind = "node";
      else if (edges.has(id)) kind = "edge";
      else if (this.groupMembers.has(id)) kind = "group";
      else if (id.startsWith("gedge-")) kind = "group-edge";
      else if (g.classList.contains("gs-error-saved")) kind = "error-saved";
      const texts = Array.from(g.querySelectorAll<SVGTextElement>("text"));
      const count = kind === "tensor" || kind === "node" || kind === "edge" ? DYNAMIC_LINES[kind] : kind === "group" ? 1 : 0;
      const dynamic = texts.slice(texts.length - count);
      for (const t of dynamic) {
        t.textContent = "";
        t.classList.add("gs-dyn");
      }
      const title = g.querySelector("title");
      if (kind === "tensor" || kind === "node" || kind === "group") {
        g.setAttribute("data-node-id", id);
        g.setAttribute("tabindex", "0");
        g.setAttribute("role", "button");
        const name = texts[0]?.textContent ?? id;
        const what = kind === "tensor" ? `tensor ${name}` : kind === "node" ? `node ${name}` : `group ${name}, press Enter to expand`;
        g.setAttribute("aria-label", what);
        if (title) title.textContent = kind === "group" ? `${name}: click to expand` : `${name} (${id})`;
        const activate = (): void => (kind === "group" ? this.callbacks.onExpand(id) : this.select(id));
        g.addEventListener("click", (e) => {
          e.stopPropagation();
          activate();
        });
        g.addEventListener("keydown", (e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            activate();
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
      this.elements.set(id, { id, kind, g, dynamic, classes: "" });
    }
    svg.addEventListener("click", () => this.select(null));
  }

  /** The drawn element that stands for a trace id (the id itself, or its collapsed group). */
  elementFor(id: string): SVGGElement | null {
    return this.elements.get(this.drawnAs(id))?.g ?? null;
  }

  select(id: string | null): void {
    if (this.selected) this.elementFor(this.selected)?.classList.remove("is-selected");
    this.selected = id;
    if (id) this.elementFor(id)?.classList.add("is-selected");
    this.callbacks.onSelect(id);
  }

  /** Applies one frame: classes and label text only, never a new layout. */
  apply(frame: Frame): void {
    const activeEdges = new Set(frame.activeEdges);
    const activeDrawn = new Set(frame.activeEdges.map((e) => this.edgeDrawnAs.get(e) ?? e));
    for (const el of this.elements.values()) {
      const id = el.id;
      const cls: string[] = [];
      let lines: readonly string[] | undefined = frame.labels[id];
      if (el.kind === "tensor" || el.kind === "node") {
        if (!frame.visible.has(id)) cls.push("is-future");
        if (frame.active === id) cls.push("is-active");
        if (id in frame.buffered) cls.push("is-buffered");
        if (frame.ran.has(id)) cls.push("is-ran");
        if (frame.freed.has(id)) cls.push("is-freed");
        if (frame.grads[id] || frame.captured[id]) cls.push("has-grad");
        if (frame.error && (frame.error.node === id || frame.errorTensor === id)) cls.push("is-error");
      } else if (el.kind === "edge") {
        if (activeEdges.has(id)) cls.push("is-active");
        if (id in frame.edgeGrads) cls.push("has-grad");
        const ends = this.edgeEnds.get(id);
        if (ends && !(frame.visible.has(ends[0]) && frame.visible.has(ends[1]))) cls.push("is-future");
      } else if (el.kind === "group") {
        const m = this.groupMembers.get(id)!;
        let visible = false;
        let ran = 0;
        let buffered = false;
        for (const n of m.nodes) {
          if (frame.visible.has(n)) visible = true;
          if (frame.ran.has(n)) ran++;
          if (n in frame.buffered) buffered = true;
        }
        if (!visible) cls.push("is-future");
        if (frame.active && m.all.has(frame.active)) cls.push("is-active");
        if (buffered) cls.push("is-buffered");
        if (ran === m.nodes.length && ran > 0) cls.push("is-ran");
        if (frame.error?.node && m.all.has(frame.error.node)) cls.push("is-error");
        lines = [ran > 0 ? groupStatus(ran, m.nodes.length) : ""];
      } else if (el.kind === "group-edge") {
        if (activeDrawn.has(id)) cls.push("is-active");
      } else if (el.kind === "error-saved") {
        cls.push(frame.error ? "is-error" : "is-hidden");
      }
      if (this.selected && this.drawnAs(this.selected) === id) cls.push("is-selected");
      const classes = cls.join(" ");
      if (classes !== el.classes) {
        for (const c of el.classes.split(" ")) if (c) el.g.classList.remove(c);
        for (const c of cls) el.g.classList.add(c);
        el.classes = classes;
      }
      el.dynamic.forEach((t, i) => {
        const text = lines?.[i] ?? "";
        if (t.textContent !== text) t.textContent = text;
      });
    }
    this.markLinks(frame);
    this.travel(frame);
    this.follow(frame.active);
  }

  /** Dashed tensor links light up when gradient reaches a leaf or the seed leaves the output. */
  private markLinks(frame: Frame): void {
    if (!this.svg) return;
    for (const g of Array.from(this.svg.querySelectorAll<SVGGElement>("g.gs-link"))) {
      // `link-<tensor>` (to its AccumulateGrad) or `link-<tensor>~<grad_fn>~...` (from the nodes it stands for)
      const [tensor = "", ...fns] = g.id.slice(`${SVG_ID_PREFIX}link-`.length).split(LINK_NODE_SEP);
      const current = fns.length === 0 || fns.includes(frame.gradFn[tensor] ?? "");
      const live =
        current &&
        ((frame.event?.kind === "accumulate" && frame.event.tensor === tensor) ||
          (frame.event?.kind === "backward_begin" && frame.event.roots.some((r) => r.tensor === tensor)));
      g.classList.toggle("is-active", live);
      g.classList.toggle("is-future", !frame.visible.has(tensor));
      g.classList.toggle("is-hidden", !current);
    }
  }

  /** The gradient travels: a dot with its value moves along each edge it is sent on this step. */
  private travel(frame: Frame): void {
    if (!this.svg) return;
    for (const old of Array.from(this.svg.querySelectorAll(".gs-particle"))) old.remove();
    if (this.reducedMotion?.matches) return;
    const done = new Set<string>();
    for (const edgeId of frame.activeEdges) {
      const drawn = this.edgeDrawnAs.get(edgeId) ?? edgeId;
      if (done.has(drawn)) continue;
      done.add(drawn);
      const path = this.elements.get(drawn)?.g.querySelector("path");
      const d = path?.getAttribute("d");
      if (!path || !d) continue;
      const grad = frame.edgeGrads[edgeId];
      const particle = document.createElementNS(SVG_NS, "g");
      particle.setAttribute("class", "gs-particle");
      particle.setAttribute("aria-hidden", "true");
      const dot = document.createElementNS(SVG_NS, "circle");
      dot.setAttribute("r", "5");
      particle.append(dot);
      if (grad && drawn === edgeId) {
        const text = document.createElementNS(SVG_NS, "text");
        text.setAttribute("x", "8");
        text.setAttribute("y", "-6");
        text.textContent = formatValue(grad);
        particle.append(text);
      }
      // The path runs from the next function to the consumer; gradient flows the other way.
      const motion = document.createElementNS(SVG_NS, "animateMotion");
      motion.setAttribute("dur", `${TRAVEL_MS}ms`);
      motion.setAttribute("fill", "freeze");
      motion.setAttribute("keyPoints", "1;0");
      motion.setAttribute("keyTimes", "0;1");
      motion.setAttribute("calcMode", "linear");
      motion.setAttribute("begin", "indefinite");
      motion.setAttribute("path", d);
      // Fade out once it arrives, so the value on the edge label stays readable.
      const fade = document.createElementNS(SVG_NS, "animate");
      fade.setAttribute("attributeName", "opacity");
      fade.setAttribute("values", "1;1;0");
      fade.setAttribute("keyTimes", "0;0.75;1");
      fade.setAttribute("dur", `${Math.round(TRAVEL_MS * 1.4)}ms`);
      fade.setAttribute("fill", "freeze");
      fade.setAttribute("begin", "indefinite");
      particle.append(motion, fade);
      path.parentNode?.append(particle);
      (motion as SVGAnimationElement).beginElement?.();
      (fade as SVGAnimationElement).beginElement?.();
    }
  }

  /**
   * Keeps the active element in view: pans (without zooming) when it is outside the graph area.
   * Works from positions measured once per layout, so a step never forces a browser layout.
   */
  private follow(id: string | null): void {
    if (!id || !this.svg || !this.zoomer) return;
    const t0 = this.zoomState;
    if (t0.k === 1 && t0.x === 0 && t0.y === 0) return; // fitted: the viewBox holds the whole graph
    const drawn = this.drawnAs(id);
    const geo = this.geometry();
    const c = geo?.centers.get(drawn);
    if (!geo || !c) return;
    const t = this.zoomState;
    const zx = t.k * c.x + t.x;
    const zy = t.k * c.y + t.y;
    const sx = geo.base.a * zx + geo.base.c * zy + geo.base.e;
    const sy = geo.base.b * zx + geo.base.d * zy + geo.base.f;
    const r = geo.host;
    const margin = 20;
    if (sx >= r.left + margin && sx <= r.right - margin && sy >= r.top + margin && sy <= r.bottom - margin) return;
    const dx = (r.left + r.width / 2 - sx) / geo.base.a / t.k;
    const dy = (r.top + r.height / 2 - sy) / geo.base.d / t.k;
    select(this.svg).call(this.zoomer.translateBy, dx, dy);
  }

  /** Element centres (zoom-wrapper coordinates), the wrapper-to-screen matrix at zoom 1 and the host box. */
  private geometry(): { centers: Map<string, { x: number; y: number }>; base: DOMMatrix; host: DOMRect } | null {
    if (this.geo) return this.geo;
    const svg = this.svg;
    const wrapper = svg?.querySelector<SVGGElement>("g.gs-zoom");
    const root = wrapper?.querySelector<SVGGElement>("g.graph");
    if (!svg || !wrapper || !root) return null;
    const host = this.host.getBoundingClientRect();
    const screen = svg.getScreenCTM();
    if (!screen || host.width === 0) return null;
    const rootM = root.transform.baseVal.consolidate()?.matrix ?? new DOMMatrix();
    const centers = new Map<string, { x: number; y: number }>();
    for (const el of this.elements.values()) {
      if (el.kind !== "tensor" && el.kind !== "node" && el.kind !== "group") continue;
      const b = el.g.getBBox();
      const x = b.x + b.width / 2;
      const y = b.y + b.height / 2;
      centers.set(el.id, { x: rootM.a * x + rootM.c * y + rootM.e, y: rootM.b * x + rootM.d * y + rootM.f });
    }
    this.geo = { centers, base: DOMMatrix.fromMatrix(screen), host };
    return this.geo;
  }

  private setupZoom(svg: SVGSVGElement): void {
    const root = svg.querySelector<SVGGElement>("g.graph");
    if (!root) return;
    const wrapper = document.createElementNS(SVG_NS, "g");
    wrapper.setAttribute("class", "gs-zoom");
    root.replaceWith(wrapper);
    wrapper.append(root);
    const z = zoom<SVGSVGElement, unknown>()
      .scaleExtent([0.1, 8])
      .on("zoom", (e: { transform: { k: number; x: number; y: number; toString(): string } }) => {
        this.zoomState = { k: e.transform.k, x: e.transform.x, y: e.transform.y };
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
