import { describe, expect, it } from "vitest";
import { instance } from "@viz-js/viz";
import { SVG_ID_PREFIX, toDot } from "../src/dot";
import { buildFrames, labelWidths } from "../src/replay";
import { validateTrace } from "../src/trace/validate";
import type { Trace } from "../src/trace/types";
import { goldenTraces, handMade } from "./fixtures";

function dotFor(trace: Trace, saved = false): string {
  return toDot(trace, { saved, widths: labelWidths(buildFrames(trace)) });
}

describe("DOT for y = x * x + sin(x)", () => {
  const trace = handMade("mul_sin");
  const dot = dotFor(trace);

  it("contains every node and edge id", () => {
    for (const n of trace.nodes) expect(dot).toContain(`id="${SVG_ID_PREFIX}${n.id}"`);
    for (const e of trace.edges) expect(dot).toContain(`id="${SVG_ID_PREFIX}${e.id}"`);
  });

  it("labels the leaf x, the output y and each grad_fn", () => {
    expect(dot).toMatch(/"t0" \[id="gs-t0", class="gs-tensor gs-leaf", label="x\\n/);
    expect(dot).toMatch(/"t3" \[id="gs-t3", class="gs-tensor gs-output", label="y\\n/);
    for (const name of ["MulBackward0", "SinBackward0", "AddBackward0", "AccumulateGrad"]) expect(dot).toContain(name);
  });

  it("labels edges with their local-gradient formula", () => {
    expect(dot).toContain('label="grad * cos(self)\\n');
  });

  it("hides saved tensors unless asked", () => {
    expect(dot).not.toContain("saved.self");
    expect(dotFor(trace, true)).toContain('"n1.saved.other"');
  });

  it("is laid out by Graphviz with every id in the SVG", async () => {
    const viz = await instance();
    const svg = viz.renderString(dot, { format: "svg" });
    for (const n of trace.nodes) expect(svg).toContain(`id="gs&#45;${n.id}"`);
    expect(svg).toContain(">MulBackward0<");
  });
});

describe("golden traces from the tracer", () => {
  const golden = goldenTraces();
  it.skipIf(golden.length === 0)("all validate, replay and lay out", async () => {
    const viz = await instance();
    for (const [file, raw] of golden) {
      const trace = validateTrace(raw);
      const frames = buildFrames(trace);
      expect(frames.length, file).toBeGreaterThan(0);
      for (const f of frames) expect(f.narration.length, file).toBeGreaterThan(0);
      const svg = viz.renderString(dotFor(trace), { format: "svg" });
      for (const n of trace.nodes) expect(svg, `${file} ${n.id}`).toContain(`id="gs&#45;${n.id}"`);
    }
  });
});
