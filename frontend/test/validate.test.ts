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

  it("expands bare-number values into 0-d float32 array values", () => {
    const full = { shape: [2], dtype: "float32", data: [1, 2] };
    const t = validateTrace({
      status: "ok",
      tensors: [{ id: "t0", shape: [], dtype: "float32", value: 2.5 }],
      nodes: [{ id: "n0", name: "MulBackward0" }, { id: "n1", name: "AccumulateGrad" }],
      edges: [{ id: "e0", source: "n0", target: "n1", local: { kind: "elementwise", value: "NaN" } }],
      events: [
        { kind: "node_run", pass: 1, node: "n0", received: [{ edge: null, grad: 1 }], grad_outputs: [1], sent: [{ edge: "e0", grad: full, total: 3 }] },
        { kind: "accumulate", pass: 1, node: "n1", tensor: "t0", before: null, contribution: full, after: -1 },
      ],
    });
    const scalar = (x: number | string) => ({ shape: [], dtype: "float32", data: [x] });
    expect(t.tensors[0]!.value).toEqual(scalar(2.5));
    expect(t.edges[0]!.local!.value).toEqual(scalar("NaN"));
    const run = t.events[0] as Extract<(typeof t.events)[number], { kind: "node_run" }>;
    expect(run.received[0]!.grad).toEqual(scalar(1));
    expect(run.grad_outputs).toEqual([scalar(1)]);
    expect(run.sent[0]).toEqual({ edge: "e0", grad: full, total: scalar(3) });
    const acc = t.events[1] as Extract<(typeof t.events)[number], { kind: "accumulate" }>;
    expect([acc.before, acc.contribution, acc.after]).toEqual([null, full, scalar(-1)]);
    expect(() => validateTrace({ status: "ok", tensors: [{ id: "t0", value: true }] })).toThrow(/a value should be/);
  });

  it("gives an alias named same_as the value of the tensor or earlier alias it names", () => {
    const w = { shape: [2, 1], dtype: "float32", data: [1, 2] };
    const wt = { shape: [1, 2], dtype: "float32", data: [1, 2] };
    const event = (aliases: unknown[]) => ({ kind: "inplace", tensor: "t0", node: null, version: 1, value: w, aliases });
    const t = validateTrace({
      status: "ok",
      events: [event([{ tensor: "t1", version: 1, same_as: "t0" }, { tensor: "t2", version: 1, value: wt }, { tensor: "t3", version: 1, same_as: "t2" }])],
    });
    const aliases = (t.events[0] as { aliases: { tensor: string; value: unknown }[] }).aliases;
    expect(aliases.map((a) => [a.tensor, a.value])).toEqual([["t1", w], ["t2", wt], ["t3", wt]]);
    expect(() => validateTrace({ status: "ok", events: [event([{ tensor: "t1", version: 1, same_as: "t5" }])] })).toThrow(/not the event.s tensor or an alias before it/);
  });

  it("keeps the hand-made fixtures valid", () => {
    expect(handMade("mul_sin").nodes.map((n) => n.name)).toEqual(["AccumulateGrad", "MulBackward0", "SinBackward0", "AddBackward0"]);
  });
});
