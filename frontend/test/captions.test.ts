import { describe, expect, it } from "vitest";
import { Replay } from "../src/replay";
import { validateTrace } from "../src/trace/validate";
import { readFileSync } from "node:fs";

const raw = (): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL("./fixtures/mul_sin.json", import.meta.url), "utf8")) as Record<string, unknown>;

describe("lesson captions", () => {
  it("shows a line's caption on the steps of that line, forward and backward", () => {
    const trace = validateTrace({ ...raw(), captions: [{ line: 3, text: "two paths meet" }] });
    const replay = new Replay(trace);
    const withCaption = [];
    for (let i = 0; i < replay.length; i++) {
      const f = replay.frame(i);
      if (f.caption !== null) withCaption.push(f);
      if (f.line === 3) expect(f.caption).toBe("two paths meet");
      else expect(f.caption).toBeNull();
    }
    expect(withCaption.some((f) => f.phase === "forward")).toBe(true);
    expect(withCaption.some((f) => f.event?.kind === "node_run")).toBe(true);
  });

  it("is empty for traces without captions", () => {
    const trace = validateTrace(raw());
    expect(trace.captions).toEqual([]);
    expect(new Replay(trace).frame(0).caption).toBeNull();
  });
});
