import { describe, expect, it } from "vitest";
import { buildFrames, labelWidths, startStep } from "../src/replay";
import { formatValue } from "../src/format";
import { goldenTraces, handMade } from "./fixtures";
import { validateTrace } from "../src/trace/validate";

const trace = handMade("mul_sin");
const frames = buildFrames(trace);
const last = frames[frames.length - 1]!;

describe("replay of y = x * x + sin(x)", () => {
  it("has one frame per event", () => {
    expect(frames).toHaveLength(trace.events.length);
  });

  it("ends with x.grad = 3.5839 shown on x", () => {
    expect(formatValue(last.grads["t0"])).toBe("3.5839");
    expect(last.labels["t0"]).toContain("grad 3.5839");
  });

  it("starts with the graph built, just before backward", () => {
    const start = frames[startStep(frames)]!;
    expect(start.phase).toBe("forward");
    expect(frames[startStep(frames) + 1]!.event?.kind).toBe("backward_begin");
    for (const id of ["t0", "n0", "n1", "n2", "n3", "t3"]) expect(start.visible.has(id)).toBe(true);
    expect(start.grads["t0"]).toBeUndefined();
  });

  it("only shows what exists so far in the forward pass", () => {
    expect(frames[0]!.visible.has("t0")).toBe(true);
    expect(frames[0]!.visible.has("n3")).toBe(false);
  });

  it("highlights the running node and the edges it sends along", () => {
    const mul = frames.find((f) => f.event?.kind === "node_run" && f.active === "n1")!;
    expect(mul.activeEdges).toEqual(["e0", "e1"]);
    expect(mul.labels["e0"]).toEqual(["2.0"]);
    expect(mul.narration).toBe("MulBackward0 receives 1.0 and sends 2.0 + 2.0 = 4.0 to x.");
  });

  it("buffers running totals at nodes that have not run yet", () => {
    const mul = frames.find((f) => f.event?.kind === "node_run" && f.active === "n1")!;
    expect(formatValue(mul.buffered["n0"])).toBe("3.5839");
    expect(mul.labels["n0"]).toEqual(["grad 3.5839"]);
  });

  it("shows summed contributions when a node runs", () => {
    const acc = frames.find((f) => f.event?.kind === "node_run" && f.active === "n0")!;
    expect(acc.sum).toBe("-0.4161 + 2.0 + 2.0 = 3.5839");
  });

  it("shows AccumulateGrad as old + contribution = new", () => {
    const acc = frames.find((f) => f.event?.kind === "accumulate")!;
    expect(acc.sum).toBe("0 + 3.5839 = 3.5839");
    expect(acc.labels["n0"]).toEqual(["0 + 3.5839 = 3.5839"]);
  });

  it("stepping back restores the earlier state", () => {
    const accIndex = frames.findIndex((f) => f.event?.kind === "accumulate");
    const before = frames[accIndex - 1]!;
    expect(before.grads["t0"]).toBeUndefined();
    expect(before.labels["t0"]![1]).toBe("");
    expect(frames[accIndex]!.labels["t0"]![1]).toBe("grad 3.5839");
  });

  it("marks freed nodes after backward", () => {
    expect(last.freed.has("n1")).toBe(true);
    expect(last.phase).toBe("after");
  });

  it("reserves label room for the longest text", () => {
    const widths = labelWidths(frames);
    expect(widths.get("n0")![0]).toBe("-0.4161 + 2.0 + 2.0 = 3.5839".length);
  });
});

describe("replay of an error trace", () => {
  const err = handMade("no_grad_error");
  const ef = buildFrames(err);
  it("ends on the error with its line", () => {
    const end = ef[ef.length - 1]!;
    expect(end.error?.type).toBe("RuntimeError");
    expect(end.line).toBe(4);
    expect(end.narration).toMatch(/^RuntimeError: element 0 of tensors does not require grad/);
  });
  it("starts at the end when nothing ran backward", () => {
    expect(startStep(ef)).toBe(ef.length - 1);
  });
});

describe("replay of a training step on matrices", () => {
  const mlp = validateTrace(goldenTraces().find(([f]) => f === "sgd_step.json" || f === "mlp_step.json")![1]);
  const mlpFrames = buildFrames(mlp);

  it("keeps a long AccumulateGrad sum above the graph and shows the new .grad on the node", () => {
    let long = 0;
    mlp.events.forEach((ev, i) => {
      if (ev.kind !== "accumulate") return;
      const f = mlpFrames[i]!;
      if (f.sum!.length <= 32) return;
      long += 1;
      expect(f.sum).toContain(" = ");
      expect(f.labels[ev.node]).toEqual([`grad ${formatValue(ev.after)}`]);
    });
    expect(long).toBeGreaterThan(0);
  });
});
