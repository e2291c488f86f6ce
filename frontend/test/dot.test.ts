import { describe, expect, it } from "vitest";
import { instance } from "@viz-js/viz";
import { SVG_ID_PREFIX, groupByLine, toDot } from "../src/dot";
import { buildFrames, labelWidths } from "../src/replay";
import type { Trace } from "../src/trace/types";
import { validateTrace } from "../src/trace/validate";
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

describe("large graphs", () => {
  /** A chain of n MulBackward0 nodes all created on line 4 (a loop), with one leaf. */
  function chain(n: number): Trace {
    const v = { shape: [], dtype: "float32", data: [1] };
    const span = { line: 4, col: 9, end_line: 4, end_col: 17 };
    const tensors: Record<string, unknown>[] = [{ id: "t0", names: ["x"], shape: [], dtype: "float32", requires_grad: true, is_leaf: true, grad_fn: null, value: v, span: null }];
    const nodes: Record<string, unknown>[] = [{ id: "n0", name: "AccumulateGrad", kind: "accumulate" as const, variable: "t0", inputs: [], outputs: [], saved: [], formulas: [], span: null, created_in_pass: null }];
    const edges: Record<string, unknown>[] = [];
    for (let i = 1; i <= n; i++) {
      tensors.push({ id: `t${i}`, names: ["y"], shape: [], dtype: "float32", requires_grad: true, is_leaf: false, grad_fn: `n${i}`, value: v, span: null });
      nodes.push({ id: `n${i}`, name: "MulBackward0", kind: "op" as const, variable: null, inputs: [`t${i - 1}`], outputs: [`t${i}`], saved: [], formulas: ["grad * other"], span, created_in_pass: null });
      edges.push({ id: `e${i}`, source: `n${i}`, target: `n${i - 1}`, input_nr: 0, formula: "grad * other", local: null });
    }
    return { version: "1.0", status: "ok", code: "", stdout: "", error: null, tensors, nodes, edges, events: [], notes: [] } as unknown as Trace;
  }

  it("draws a small graph whole", () => {
    expect(groupByLine(chain(20))).toBeNull();
  });

  it("collapses a large graph by source line into one box per line, which expands", () => {
    const trace = chain(200);
    const grouping = groupByLine(trace)!;
    expect([...grouping.groups.keys()]).toEqual(["group-L4"]);
    expect(grouping.groups.get("group-L4")!.summary).toBe("MulBackward0 ×200");
    const collapsed = toDot(trace, { saved: false, grouping });
    expect(collapsed).toContain('id="gs-group-L4"');
    expect(collapsed).not.toContain('id="gs-n57"');
    expect(collapsed.split("\n").length).toBeLessThan(20);
    const expanded = toDot(trace, { saved: false, grouping, expanded: new Set(["group-L4"]) });
    expect(expanded).not.toContain('id="gs-group-L4"');
    for (const n of trace.nodes) expect(expanded).toContain(`id="gs-${n.id}"`);
  });
});

describe("a tensor changed in place, and a view of it", () => {
  // y = x * 1 (n0); v = y.view(2) (n2); y.mul_(10) (n3); reading v.grad_fn rebuilds it (n4)
  const trace = validateTrace(
    goldenTraces().find(([f]) => f === "inplace_and_views.json")![1],
  );
  const dot = dotFor(trace);
  const frames = buildFrames(trace);

  it("draws one link per grad_fn the tensor had", () => {
    expect(dot).toContain(`"n0" -> "t1" [id="${SVG_ID_PREFIX}link-t1~n0"`);
    expect(dot).toContain(`"n3" -> "t1" [id="${SVG_ID_PREFIX}link-t1~n3"`);
    expect(dot).toContain(`"n2" -> "t2" [id="${SVG_ID_PREFIX}link-t2~n2"`);
    expect(dot).toContain(`"n4" -> "t2" [id="${SVG_ID_PREFIX}link-t2~n4"`);
  });

  it("moves each tensor's current grad_fn at its in-place step", () => {
    const opOf = (node: string) => frames.find((f) => f.event?.kind === "op" && f.event.node === node)!;
    const inplaceOf = (t: string) => frames.find((f) => f.event?.kind === "inplace" && f.event.tensor === t)!;
    expect(opOf("n2").gradFn).toMatchObject({ t1: "n0", t2: "n2" });
    expect(inplaceOf("t1").gradFn).toMatchObject({ t1: "n3", t2: "n2" });
    expect(inplaceOf("t2").gradFn).toMatchObject({ t1: "n3", t2: "n4" });
    expect(frames[frames.length - 1]!.gradFn).toMatchObject({ t1: "n3", t2: "n4", t3: "n5" });
  });

  it("shows the view's new values at its base's in-place step", () => {
    const atMul = frames.find((f) => f.event?.kind === "inplace" && f.event.tensor === "t1")!;
    expect(atMul.values["t1"]?.data).toEqual([10, 20]);
    expect(atMul.values["t2"]?.data).toEqual([10, 20]);
    expect(atMul.versions["t2"]).toBe(1);
  });
});
