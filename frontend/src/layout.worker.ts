/** Web Worker: lays out DOT with Graphviz (WebAssembly, bundled inside @viz-js/viz) and returns SVG. */

import { instance } from "@viz-js/viz";

interface Request {
  id: number;
  dot: string;
}

const vizReady = instance();

self.onmessage = async (msg: MessageEvent<Request>) => {
  const { id, dot } = msg.data;
  try {
    const viz = await vizReady;
    const result = viz.render(dot, { format: "svg" });
    if (result.status === "success") {
      self.postMessage({ id, svg: result.output });
    } else {
      const text = result.errors.map((e) => e.message).join("; ");
      self.postMessage({ id, error: text || "Graphviz failed" });
    }
  } catch (e) {
    self.postMessage({ id, error: String(e) });
  }
};
