import { describe, expect, it } from "vitest";
import { narrate } from "../src/narration";
import { TraceLookup } from "../src/trace/lookup";
import { goldenTraces, handMade } from "./fixtures";
import { validateTrace } from "../src/trace/validate";

const trace = handMade("mul_sin");
const lookup = new TraceLookup(trace);
const sentences = trace.events.map((e) => narrate(e, lookup));

describe("narration", () => {
  it("says what the forward pass computed, quoting the source", () => {
    expect(sentences[0]).toBe("Created x = 2.0 with requires_grad=True (line 2).");
    expect(sentences[1]).toBe("Forward: x * x gives 4.0; autograd records MulBackward0.");
    expect(sentences[3]).toBe("Forward: y = x * x + torch.sin(x) gives 4.9093; autograd records AddBackward0.");
  });

  it("names the seed", () => {
    expect(sentences[4]).toBe("Backward pass 1 starts (backward()): seed y with gradient 1.0.");
  });

  it("names where each gradient goes", () => {
    expect(sentences[5]).toBe("AddBackward0 receives 1.0 and sends 1.0 to MulBackward0 and 1.0 to SinBackward0.");
    expect(sentences[6]).toBe("SinBackward0 receives 1.0 and sends -0.4161 to x.");
  });

  it("explains accumulation into .grad", () => {
    expect(sentences[9]).toBe("AccumulateGrad adds 3.5839 to x.grad: 0 + 3.5839 = 3.5839.");
  });

  it("gives every step a sentence", () => {
    for (const s of sentences) expect(s.length).toBeGreaterThan(10);
  });

  it("names the tensors that share the changed memory", () => {
    const views = validateTrace(goldenTraces().find(([f]) => f === "inplace_and_views.json")![1]);
    const said = views.events.map((e) => narrate(e, new TraceLookup(views)));
    expect(said).toContain("In-place change: y is now [10.0, 20.0] (version 1), its grad_fn is now MulBackward0. v shares its memory and changed too.");
  });

  it("leaves out the tensors a module wrapped into its parameters, which the graph does not show", () => {
    const mlp = validateTrace(goldenTraces().find(([f]) => f === "mlp_step.json")![1]);
    const lookup = new TraceLookup(mlp);
    const said = mlp.events.filter((e) => e.kind === "inplace").map((e) => narrate(e, lookup));
    expect(said.length).toBeGreaterThan(0);
    for (const s of said) expect(s).not.toMatch(/tensor t\d+/);
    // an alias that is visible (the output of a node) is still named
    expect(said.some((s) => /the output of \w+ shares its memory/.test(s))).toBe(true);
  });
});
