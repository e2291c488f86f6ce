import { describe, expect, it } from "vitest";
import { DEFAULT_CODE, compressCode, decodeState, encodeState } from "../src/state";

const fallback = { code: DEFAULT_CODE, step: null, saved: false };

describe("URL state", () => {
  it("round-trips code, step and options", async () => {
    const code = "import torch\nx = torch.tensor([1.0, -2.5], requires_grad=True)\n# ünïcødé ✓\n(x ** 2).sum().backward()\n";
    const hash = await encodeState({ code, step: 7, saved: true });
    expect(hash.startsWith("#c=")).toBe(true);
    expect(hash).not.toMatch(/[ +/]/);
    expect(await decodeState(hash, fallback)).toEqual({ code, step: 7, saved: true });
  });

  it("compresses repetitive code", async () => {
    const code = "y = x * x\n".repeat(200);
    expect((await compressCode(code)).length).toBeLessThan(code.length / 10);
  });

  it("falls back on a damaged or empty fragment", async () => {
    expect(await decodeState("", fallback)).toEqual(fallback);
    expect(await decodeState("#c=!!!notbase64&s=x", fallback)).toEqual(fallback);
  });
});
