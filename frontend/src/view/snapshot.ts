/** Images of the current step: the graph's SVG with its computed styles inlined, and a PNG of it. */

const SVG_NS = "http://www.w3.org/2000/svg";
/** The properties the theme and the step classes set; copied so the file looks like the screen. */
const PROPS = [
  "fill",
  "fill-opacity",
  "stroke",
  "stroke-width",
  "stroke-dasharray",
  "stroke-opacity",
  "opacity",
  "font-family",
  "font-size",
  "font-weight",
  "font-style",
  "display",
  "visibility",
] as const;

/** A standalone SVG document of what the graph shows now (no zoom, no moving particle). */
export function graphSvg(host: HTMLElement): string {
  const live = host.querySelector<SVGSVGElement>(":scope > svg");
  if (!live) throw new Error("there is no graph to export yet");
  const copy = live.cloneNode(true) as SVGSVGElement;
  // Read the end state of every style transition, not a colour half-way through fading.
  host.classList.add("gs-snapshot");
  void host.getBoundingClientRect();
  const liveEls = [live, ...Array.from(live.querySelectorAll("*"))];
  const copyEls = [copy, ...Array.from(copy.querySelectorAll("*"))];
  liveEls.forEach((el, i) => {
    const target = copyEls[i];
    if (!target || el.namespaceURI !== SVG_NS) return;
    const cs = getComputedStyle(el);
    const style = PROPS.map((p) => `${p}:${cs.getPropertyValue(p)}`).join(";");
    target.setAttribute("style", style);
  });
  host.classList.remove("gs-snapshot");
  for (const el of Array.from(copy.querySelectorAll(".gs-particle, animate, animateMotion, title"))) el.remove();
  const wrapper = copy.querySelector("g.gs-zoom");
  wrapper?.removeAttribute("transform");
  for (const el of Array.from(copy.querySelectorAll("[tabindex], [role], [aria-label]"))) {
    el.removeAttribute("tabindex");
    el.removeAttribute("role");
    el.removeAttribute("aria-label");
  }
  const box = copy.viewBox.baseVal;
  if (box && box.width > 0) {
    copy.setAttribute("width", String(Math.ceil(box.width)));
    copy.setAttribute("height", String(Math.ceil(box.height)));
  }
  copy.setAttribute("xmlns", SVG_NS);
  const bg = getComputedStyle(host.closest(".graph-wrap") ?? host).backgroundColor;
  const rect = document.createElementNS(SVG_NS, "rect");
  if (box && box.width > 0) {
    rect.setAttribute("x", String(box.x));
    rect.setAttribute("y", String(box.y));
    rect.setAttribute("width", String(box.width));
    rect.setAttribute("height", String(box.height));
    rect.setAttribute("fill", bg);
    copy.insertBefore(rect, copy.firstChild);
  }
  copy.removeAttribute("class");
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(copy)}\n`;
}

/** The same picture as a PNG data URL, `scale` times the SVG's natural size. */
export async function graphPng(host: HTMLElement, scale = 2): Promise<string> {
  const svg = graphSvg(host);
  const url = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
  try {
    const img = new Image();
    img.decoding = "sync";
    await new Promise<void>((resolve, reject) => {
      img.onload = () => resolve();
      img.onerror = () => reject(new Error("the SVG could not be drawn"));
      img.src = url;
    });
    const canvas = document.createElement("canvas");
    canvas.width = Math.max(1, Math.round(img.naturalWidth * scale));
    canvas.height = Math.max(1, Math.round(img.naturalHeight * scale));
    const ctx = canvas.getContext("2d");
    if (!ctx) throw new Error("no 2D canvas");
    ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
    return canvas.toDataURL("image/png");
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** Saves text or a data URL as a file through a temporary link. */
export function download(name: string, content: string | Blob, type = "application/octet-stream"): void {
  const isDataUrl = typeof content === "string" && content.startsWith("data:");
  const href = isDataUrl ? content : URL.createObjectURL(content instanceof Blob ? content : new Blob([content], { type }));
  const a = document.createElement("a");
  a.href = href;
  a.download = name;
  a.style.display = "none";
  document.body.append(a);
  a.click();
  a.remove();
  if (!isDataUrl) setTimeout(() => URL.revokeObjectURL(href), 1000);
}
