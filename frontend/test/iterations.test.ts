/** Splitting a training loop's timeline into iteration windows, and what each window draws. */
import { describe, expect, it } from "vitest";
import { toDot } from "../src/dot";
import {
  iterationLabel,
  iterationWindows,
  nextPassStart,
  passStarts,
  previousPassStart,
  windowAt,
  windowTrace,
  type IterationWindow,
} from "../src/iterations";
import type { Trace } from "../src/trace/types";
import { validateTrace } from "../src/trace/validate";
import { goldenTraces, handMade } from "./fixtures";

const golden = new Map(goldenTraces().map(([file, raw]) => [file, validateTrace(raw)]));

function goldenTrace(file: string): Trace {
  const trace = golden.get(file);
  if (!trace) throw new Error(`golden trace ${file} is missing`);
  return trace;
}

function opNodes(trace: Trace, w: IterationWindow): string[] {
  return trace.nodes.filter((n) => n.kind !== "accumulate" && w.ids.has(n.id)).map((n) => n.id);
}

function ranges(windows: readonly IterationWindow[]): [number, number][] {
  return windows.map((w) => [w.first, w.last]);
}

describe("traces drawn whole", () => {
  const singlePass = [...golden].filter(([, t]) => passStarts(t).length < 2);

  it("include every golden trace with one backward pass", () => {
    expect(singlePass.length).toBeGreaterThan(5);
    for (const [file, trace] of singlePass) expect(iterationWindows(trace), file).toBeNull();
  });

  it("include backward twice through one retained graph", () => {
    expect(passStarts(goldenTrace("retain_graph.json"))).toHaveLength(3);
    expect(iterationWindows(goldenTrace("retain_graph.json"))).toBeNull();
  });

  it("include double backward (the second pass runs nodes the first one built)", () => {
    expect(passStarts(goldenTrace("higher_order.json"))).toHaveLength(2);
    expect(iterationWindows(goldenTrace("higher_order.json"))).toBeNull();
  });
});

describe("a loop that builds a new graph per pass (sgd_step)", () => {
  const trace = goldenTrace("sgd_step.json");
  const windows = iterationWindows(trace)!;

  it("has one window per pass, each ending with its backward_end", () => {
    expect(ranges(windows)).toEqual([
      [0, 17],
      [18, 38],
      [39, 64],
    ]);
    for (const w of windows.slice(0, 2)) expect(trace.events[w.last]!.kind).toBe("backward_end");
  });

  it("maps every step to its window, the set-up before the first pass to window 1", () => {
    expect(windowAt(windows, 0).index).toBe(0);
    expect(windowAt(windows, 9).index).toBe(0);
    expect(windowAt(windows, 17).index).toBe(0);
    expect(windowAt(windows, 18).index).toBe(1);
    expect(windowAt(windows, 38).index).toBe(1);
    expect(windowAt(windows, 39).index).toBe(2);
    expect(windowAt(windows, 64).index).toBe(2);
  });

  it("draws each iteration's own nodes, the shared AccumulateGrad nodes and the leaves", () => {
    expect(opNodes(trace, windows[0]!)).toEqual(["n0", "n2", "n4", "n5", "n6"]);
    expect(opNodes(trace, windows[1]!)).toEqual(["n7", "n8", "n9", "n10", "n11"]);
    expect(opNodes(trace, windows[2]!)).toEqual(["n12", "n13", "n14", "n15", "n16"]);
    const names = (w: IterationWindow): string[] =>
      trace.tensors.filter((t) => w.ids.has(t.id) && t.names.length > 0).map((t) => t.names.join("="));
    for (const w of windows) {
      for (const id of ["n1", "n3", "t2", "t3"]) expect(w.ids.has(id), `${id} in window ${w.index + 1}`).toBe(true);
      expect(names(w)).toEqual(expect.arrayContaining(["xs", "ys", "slope", "bias", "pred", "loss"]));
    }
    // One pred and one loss per window: this iteration's.
    expect(names(windows[1]!).filter((n) => n === "loss")).toHaveLength(1);
  });

  it("cuts the trace down to a window's nodes, tensors and the edges between them", () => {
    const sub = windowTrace(trace, windows[1]!);
    expect(sub.nodes.map((n) => n.id).sort()).toEqual(["n1", "n10", "n11", "n3", "n7", "n8", "n9"].sort());
    for (const e of sub.edges) expect(windows[1]!.ids.has(e.source) && windows[1]!.ids.has(e.target)).toBe(true);
    expect(sub.edges.length).toBeGreaterThan(0);
    const dot = toDot(sub, { saved: false });
    expect(dot).toContain('id="gs-n7"');
    expect(dot).not.toContain('id="gs-n0"');
    expect(dot).not.toContain("gs-group");
  });

  it("labels the iteration", () => {
    expect(iterationLabel(windows, 0)).toBe("iteration 1 of 3");
    expect(iterationLabel(windows, 30)).toBe("iteration 2 of 3");
  });
});

describe("steps after the last pass", () => {
  it("belong to the last window when they build nothing (accumulate_and_zero)", () => {
    const trace = goldenTrace("accumulate_and_zero.json");
    const windows = iterationWindows(trace)!;
    expect(ranges(windows)).toEqual([
      [0, 7],
      [8, 15],
      [16, 26],
    ]);
    expect(windows[2]!.segments.map((s) => s.pass)).toEqual([3, null]);
  });

  it("form a window of their own when they create nodes", () => {
    const trace = handMade("two_graphs_then_forward");
    const windows = iterationWindows(trace)!;
    expect(ranges(windows)).toEqual([
      [0, 5],
      [6, 10],
      [11, 12],
    ]);
    expect(opNodes(trace, windows[2]!)).toEqual(["n3"]);
    expect(windows[2]!.ids.has("n1")).toBe(true); // x's AccumulateGrad, which z = x * 4 feeds
    expect(iterationLabel(windows, 12)).toBe("iteration 3 of 3");
  });
});

describe("a long loop whose later passes were summarised", () => {
  const trace = handMade("loop_summarised");
  const windows = iterationWindows(trace)!;
  const starts = passStarts(trace);

  it("has a window per recorded iteration; summarised passes with nothing to draw join the last one", () => {
    expect(starts).toHaveLength(23);
    expect(windows).toHaveLength(21);
    for (const w of windows) expect(opNodes(trace, w)).toHaveLength(3);
    const last = windows[20]!;
    // Pass 21's forward was recorded (its nodes are drawn), its backward and later passes were not.
    expect(last.segments.map((s) => s.pass)).toEqual([21, 22, 23, null]);
    expect(last.segments.map((s) => s.recorded)).toEqual([false, false, false, false]);
    expect(last.last).toBe(trace.events.length - 1);
    expect(windowAt(windows, trace.events.length - 1)).toBe(last);
  });

  it("says when the step's backward pass was summarised", () => {
    const last = windows[20]!;
    expect(iterationLabel(windows, last.first)).toBe("iteration 21 of 21");
    expect(iterationLabel(windows, starts[21]!)).toBe("iteration 21 of 21 · backward 22 summarised, not drawn");
    expect(iterationLabel(windows, starts[20]!)).toBe("iteration 21 of 21 · backward 21 summarised, not drawn");
    expect(iterationLabel(windows, windows[2]!.first + 1)).toBe("iteration 3 of 21");
  });

  it("gives every window a drawing: no window without nodes", () => {
    for (const w of windows) expect(windowTrace(trace, w).nodes.length).toBeGreaterThan(0);
  });
});

describe("PageDown / PageUp targets", () => {
  const starts = passStarts(goldenTrace("sgd_step.json"));

  it("are the backward_begin steps", () => {
    expect(starts).toEqual([9, 30, 51]);
  });

  it("go to the next pass start after the step", () => {
    expect(nextPassStart(starts, 0)).toBe(9);
    expect(nextPassStart(starts, 9)).toBe(30);
    expect(nextPassStart(starts, 40)).toBe(51);
    expect(nextPassStart(starts, 51)).toBeNull();
  });

  it("go to the pass start before the step", () => {
    expect(previousPassStart(starts, 64)).toBe(51);
    expect(previousPassStart(starts, 51)).toBe(30);
    expect(previousPassStart(starts, 10)).toBe(9);
    expect(previousPassStart(starts, 9)).toBeNull();
  });
});
