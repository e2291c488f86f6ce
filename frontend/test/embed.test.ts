import { describe, expect, it } from "vitest";
import { DEFAULT_PANES, embedQuery, parseEmbedOptions, shareSnippets } from "../src/embed";
import { fillTemplate, scriptSafeJson, DATA_TAG } from "../src/offline-data";
import { decodeState } from "../src/state";

describe("embed options", () => {
  it("reads title, step, autoplay, theme, panes and id from the query", () => {
    const o = parseEmbedOptions("?title=Chain%20rule&step=4&autoplay=1&theme=dark&panes=graph,code&id=a1");
    expect(o.title).toBe("Chain rule");
    expect(o.step).toBe(4);
    expect(o.autoplay).toBe(true);
    expect(o.theme).toBe("dark");
    expect([...o.panes]).toEqual(["graph", "code"]);
    expect(o.id).toBe("a1");
  });

  it("falls back to defaults on missing or bad values", () => {
    const o = parseEmbedOptions("?step=-2&theme=purple&panes=nonsense&autoplay=no");
    expect(o).toMatchObject({ title: null, step: null, autoplay: false, theme: "auto", id: null });
    expect([...o.panes]).toEqual([...DEFAULT_PANES]);
  });

  it("writes a query that reads back the same", () => {
    const q = embedQuery({ title: "a & b", step: 3, autoplay: true, theme: "light", panes: new Set(["graph", "inspector"] as const) });
    const back = parseEmbedOptions(q);
    expect(back).toMatchObject({ title: "a & b", step: 3, autoplay: true, theme: "light" });
    expect([...back.panes]).toEqual(["graph", "inspector"]);
    expect(embedQuery({ panes: new Set(DEFAULT_PANES) })).toBe("");
  });
});

describe("share snippets", () => {
  const code = 'import torch\nx = torch.tensor(1.0, requires_grad=True)  # "quotes" & <b>\n';

  it("permalink, iframe and Markdown all carry the exact code and step", async () => {
    const s = await shareSnippets({ base: "https://gs.test/app/", state: { code, step: 5, saved: false }, title: 'Week "3" [intro]' });
    expect(s.permalink.startsWith("https://gs.test/app/#c=")).toBe(true);
    const back = await decodeState(new URL(s.permalink).hash, { code: "", step: null, saved: false });
    expect(back).toEqual({ code, step: 5, saved: false });
    expect(s.embedUrl.startsWith("https://gs.test/app/embed?title=")).toBe(true);
    expect(new URL(s.embedUrl).hash).toBe(new URL(s.permalink).hash);
    expect(s.iframe).toContain('title="Week &quot;3&quot; [intro]"');
    expect(s.iframe).not.toMatch(/src="[^"]*[<>]/);
    expect(s.markdown).toBe(`[Week "3" \\[intro\\]](${s.permalink})`);
  });
});

describe("offline data", () => {
  it("escapes what could end the script element", () => {
    const text = scriptSafeJson({ s: "</script><!-- & \u2028" });
    expect(text).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(text)).toEqual({ s: "</script><!-- & \u2028" });
  });

  it("fills the data slot and refuses a template without one", () => {
    const html = `<head>${DATA_TAG}</head>`;
    const filled = fillTemplate(html, { trace: { status: "ok" }, step: 2 });
    expect(filled).toBe('<head><script type="application/json" id="gradstep-data">{"trace":{"status":"ok"},"step":2}</script></head>');
    expect(() => fillTemplate("<head></head>", { trace: {} })).toThrow(/data slot/);
  });
});
