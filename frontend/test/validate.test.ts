import { describe, expect, it } from "vitest";
import { TraceFormatError, validateTrace } from "../src/trace/validate";
import { handMade } from "./fixtures";

describe("trace validation", () => {
  it("accepts a tracer trace and fills defaults", () => {
    const t = validateTrace({ status: "ok", code: "", tensors: [{ id: "t0", shape: [], dtype: "float32", value: { shape: [], dtype: "float32", data: [1] } }] });
    expect(t.tensors[0]!.names).toEqual([]);
    expect(t.tensors[0]!.grad_fn).toBeNull();
    expect(t.events).toEqual([]);
  });

  it("rejects what cannot be drawn", () => {
    expect(() => validateTrace(null)).toThrow(TraceFormatError);
    expect(() => validateTrace({ status: "weird" })).toThrow(/unknown trace status/);
    expect(() =>
      validateTrace({ status: "ok", nodes: [{ id: "n0", name: "MulBackward0" }], edges: [{ id: "e0", source: "n0", target: "n9" }] }),
    ).toThrow(/unknown nodes/);
  });

  it("skips unknown event kinds with a note and reads pass_ as pass", () => {
    const t = validateTrace({
      status: "ok",
      events: [{ kind: "teleport" }, { kind: "backward_end", pass_: 2, freed: [] }],
    });
    expect(t.events).toEqual([{ kind: "backward_end", pass_: 2, pass: 2, freed: [] }]);
    expect(t.notes[0]).toMatch(/teleport/);
  });

  it("keeps the hand-made fixtures valid", () => {
    expect(handMade("mul_sin").nodes.map((n) => n.name)).toEqual(["AccumulateGrad", "MulBackward0", "SinBackward0", "AddBackward0"]);
  });
});
