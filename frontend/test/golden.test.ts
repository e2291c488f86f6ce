/**
 * Replays every golden trace of the gallery (tests/fixtures/traces) and checks what a user would see:
 * gradients on the leaves, sums, errors at their step, every node drawn, stepping back.
 */
import { instance } from "@viz-js/viz";
import { describe, expect, it } from "vitest";
import { SVG_ID_PREFIX, shownTensors, toDot } from "../src/dot";
import { addValues, formatSum, formatValue } from "../src/format";
import { Player } from "../src/player";
import { NODE_SUM_CHARS, Replay, buildFrames, labelWidths } from "../src/replay";
import type { ArrayValue, Trace } from "../src/trace/types";
import { validateTrace } from "../src/trace/validate";
import { goldenTraces } from "./fixtures";

const golden = goldenTraces();

/** The `.grad` the user should see on each tensor at the end: the last event that wrote it. */
function finalGrads(trace: Trace): Map<string, ArrayValue | null> {
  const grads = new Map<string, ArrayValue | null>();
  for (const ev of trace.events) {
    if (ev.kind === "accumulate") grads.set(ev.tensor, ev.after);
    else if (ev.kind === "grad_set" || ev.kind === "retain_grad") grads.set(ev.tensor, ev.grad);
  }
  return grads;
}

describe("golden traces", () => {
  it("exist (run .venv/bin/python -m tests.fixtures.regenerate)", () => {
    expect(golden.length).toBeGreaterThan(0);
  });
});

describe.each(golden)("golden %s", (file, raw) => {
  const trace = validateTrace(raw);
  const replay = new Replay(trace);
  const frames = buildFrames(trace);
  const last = frames[frames.length - 1]!;

  it("validates without dropping an event", () => {
    expect(trace.notes).toEqual((raw as { notes?: string[] }).notes ?? []);
    expect(trace.events.length).toBe((raw as { events: unknown[] }).events.length);
    expect(frames.length).toBe(Math.max(1, trace.events.length));
  });

  it("gives every step a sentence", () => {
    for (const f of frames) expect(f.narration.length, `${file} step ${f.step}`).toBeGreaterThan(5);
  });

  it("shows the final .grad of every tensor, equal to its last accumulate", () => {
    const expected = finalGrads(trace);
    for (const [tensor, grad] of expected) {
      expect(last.grads[tensor], `${file} ${tensor}`).toEqual(grad);
      expect(last.labels[tensor]![1], `${file} ${tensor}`).toBe(grad ? `grad ${formatValue(grad)}` : "grad None");
    }
    const accumulated = trace.events.filter((e) => e.kind === "accumulate");
    if (trace.status === "ok") expect(accumulated.length + trace.events.filter((e) => e.kind === "capture").length).toBeGreaterThan(0);
  });

  it("shows AccumulateGrad as old + contribution = new at each accumulate step (a long sum above the graph only)", () => {
    trace.events.forEach((ev, i) => {
      if (ev.kind !== "accumulate") return;
      const f = frames[i]!;
      const sum = formatSum([ev.before ?? "0", ev.contribution], ev.after);
      expect(f.sum).toBe(sum);
      expect(f.labels[ev.node]).toEqual([sum.length <= NODE_SUM_CHARS ? sum : `grad ${formatValue(ev.after)}`]);
      expect(f.labels[ev.tensor]![1]).toBe(`grad ${formatValue(ev.after)}`);
      expect(f.narration).toContain(sum);
    });
  });

  it("sums contributions from several consumers on the node that receives them", () => {
    trace.events.forEach((ev, i) => {
      if (ev.kind !== "node_run" || ev.received.length < 2) return;
      const f = frames[i]!;
      expect(f.sum).toMatch(/ [+-] .* = /);
      const total = ev.grad_outputs[0] ?? addValues(ev.received.map((c) => c.grad).filter((g) => g !== null));
      expect(f.labels[ev.node]).toEqual([f.sum!.length <= NODE_SUM_CHARS ? f.sum : `grad ${formatValue(total)}`]);
    });
  });

  it("lights the edges each backward step sends along", () => {
    trace.events.forEach((ev, i) => {
      if (ev.kind !== "node_run") return;
      const f = frames[i]!;
      expect(f.activeEdges).toEqual(ev.sent.map((s) => s.edge));
      for (const s of ev.sent) expect(f.labels[s.edge]).toEqual([s.grad ? formatValue(s.grad) : "None"]);
    });
  });

  it("draws every node, edge and shown tensor", async () => {
    const dot = toDot(trace, { saved: false, widths: replay.widths });
    for (const n of trace.nodes) expect(dot).toContain(`id="${SVG_ID_PREFIX}${n.id}"`);
    for (const e of trace.edges) expect(dot).toContain(`id="${SVG_ID_PREFIX}${e.id}"`);
    for (const t of shownTensors(trace)) expect(dot).toContain(`id="${SVG_ID_PREFIX}${t.id}"`);
    const viz = await instance();
    const svg = viz.renderString(dot, { format: "svg" });
    for (const n of trace.nodes) expect(svg, n.id).toContain(`id="gs&#45;${n.id}"`);
  });

  it("reserves label room measured while replaying, as wide as every frame needs", () => {
    expect(Object.fromEntries(replay.widths)).toEqual(Object.fromEntries(labelWidths(frames)));
  });

  it("restores the previous frame when stepping back, from any checkpoint spacing", () => {
    const small = new Replay(trace, undefined, { checkpointEvery: 3, cacheSize: 1 });
    const player = new Player();
    player.load(small.length, 0);
    for (let i = 1; i < small.length; i++) {
      player.next();
      small.frame(player.current.step);
      player.prev();
      expect(small.frame(player.current.step), `${file} back to ${i - 1}`).toEqual(frames[i - 1]);
      player.next();
      expect(small.frame(player.current.step), `${file} step ${i}`).toEqual(frames[i]);
    }
    player.last();
    expect(small.frame(player.current.step)).toEqual(last);
    player.first();
    expect(small.frame(player.current.step)).toEqual(frames[0]);
  });
});

const parsed = golden.map(([file, raw]) => [file, validateTrace(raw)] as const);
const withError = parsed.filter(([, t]) => t.error !== null);
const multiPass = parsed.filter(([, t]) => t.events.filter((e) => e.kind === "backward_begin").length > 1);

describe("golden traces cover errors and repeated backward calls", () => {
  it("has both kinds", () => {
    expect(withError.length).toBeGreaterThan(0);
    expect(multiPass.length).toBeGreaterThan(0);
  });
});

describe.each(withError)("golden %s (an error)", (file, trace) => {
  const replay = new Replay(trace);
  it("shows the error at the step where it happens, on the offending node", () => {
    const step = replay.errorStep!;
    expect(step).toBe(trace.events.length - 1);
    const f = replay.frame(step);
    expect(f.error).toEqual(trace.error);
    expect(f.narration).toContain(trace.error!.type);
    if (trace.error!.node) expect(f.active).toBe(trace.error!.node);
    if (trace.error!.saved_slot) {
      const t = f.errorTensor;
      expect(t, "the saved tensor in the error is found").not.toBeNull();
      expect(f.versions[t!], "its version moved on").toBe(trace.error!.actual_version);
    }
    expect(replay.frame(step - 1).error).toBeNull();
  });
});

describe.each(multiPass)("golden %s (several backward calls)", (file, trace) => {
  const frames = buildFrames(trace);
  it("plays several backward passes in sequence, numbered 1..n", () => {
    const passes = trace.events.filter((e) => e.kind === "backward_begin").map((e) => e.pass);
    expect(passes).toEqual(passes.map((_, i) => i + 1));
    trace.events.forEach((ev, i) => {
      if (ev.kind === "backward_begin") expect(frames[i]!.pass).toBe(ev.pass);
    });
  });
});
