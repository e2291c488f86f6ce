/** Embed options to and from the URL query, and the share snippets (permalink, iframe, Markdown). */

import { encodeState, type AppState } from "./state";

export type Pane = "graph" | "narration" | "code" | "inspector" | "controls";
export const PANES: readonly Pane[] = ["graph", "narration", "code", "inspector", "controls"];
/** What an embed shows when the URL does not say. */
export const DEFAULT_PANES: readonly Pane[] = ["graph", "narration", "controls"];
export type ThemeChoice = "light" | "dark" | "auto";

export interface EmbedOptions {
  title: string | null;
  /** 0-based start step from `?step=` (the fragment's `s` is read by state.ts). */
  step: number | null;
  autoplay: boolean;
  theme: ThemeChoice;
  panes: ReadonlySet<Pane>;
  /** Echoed in the height messages so a page with several embeds can tell them apart. */
  id: string | null;
}

/** The message an embed posts to its parent whenever its height changes. */
export interface HeightMessage {
  type: "gradstep:height";
  height: number;
  id: string | null;
}

const TRUE = new Set(["1", "true", "yes", "on"]);

/** `?title=Chain%20rule&step=4&autoplay=1&theme=dark&panes=graph,code&id=a` */
export function parseEmbedOptions(search: string): EmbedOptions {
  const q = new URLSearchParams(search.replace(/^\?/, ""));
  const title = q.get("title");
  const stepText = q.get("step");
  const theme = q.get("theme");
  let panes: Set<Pane> = new Set(DEFAULT_PANES);
  const paneText = q.get("panes");
  if (paneText !== null) {
    const picked = paneText
      .split(/[\s,]+/)
      .map((p) => p.trim().toLowerCase())
      .filter((p): p is Pane => (PANES as readonly string[]).includes(p));
    if (picked.length > 0) panes = new Set(picked);
  }
  return {
    title: title && title.trim() ? title.trim().slice(0, 200) : null,
    step: stepText !== null && /^\d+$/.test(stepText) ? Number(stepText) : null,
    autoplay: TRUE.has((q.get("autoplay") ?? "").toLowerCase()),
    theme: theme === "light" || theme === "dark" ? theme : "auto",
    panes,
    id: q.get("id"),
  };
}

/** The query string for these options (defaults left out), starting with `?` unless empty. */
export function embedQuery(opts: Partial<EmbedOptions>): string {
  const q = new URLSearchParams();
  if (opts.title) q.set("title", opts.title);
  if (opts.step !== null && opts.step !== undefined) q.set("step", String(opts.step));
  if (opts.autoplay) q.set("autoplay", "1");
  if (opts.theme && opts.theme !== "auto") q.set("theme", opts.theme);
  if (opts.panes) {
    const list = PANES.filter((p) => opts.panes!.has(p));
    const same = list.length === DEFAULT_PANES.length && DEFAULT_PANES.every((p) => opts.panes!.has(p));
    if (!same) q.set("panes", list.join(","));
  }
  if (opts.id) q.set("id", opts.id);
  const text = q.toString().replace(/\+/g, "%20");
  return text ? `?${text}` : "";
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function escapeMarkdown(s: string): string {
  return s.replace(/([\\[\]()*_`])/g, "\\$1");
}

export interface ShareSnippets {
  permalink: string;
  embedUrl: string;
  iframe: string;
  markdown: string;
}

export interface ShareInput {
  /** The app's base URL, e.g. "https://gradstep.example/" (ends with a slash). */
  base: string;
  state: AppState;
  title: string;
  panes?: ReadonlySet<Pane>;
  height?: number;
}

/** Everything the share dialog offers, from the app's state. */
export async function shareSnippets(input: ShareInput): Promise<ShareSnippets> {
  const hash = await encodeState(input.state);
  const base = input.base.endsWith("/") ? input.base : `${input.base}/`;
  const permalink = `${base}${hash}`;
  const title = input.title.trim() || "gradstep";
  const query = embedQuery({ title, ...(input.panes ? { panes: input.panes } : {}) });
  const embedUrl = `${base}embed${query}${hash}`;
  const height = input.height ?? 560;
  const iframe =
    `<iframe src="${escapeHtml(embedUrl)}" title="${escapeHtml(title)}" width="100%" height="${height}" ` +
    `style="border:0" loading="lazy"></iframe>`;
  const markdown = `[${escapeMarkdown(title)}](${permalink})`;
  return { permalink, embedUrl, iframe, markdown };
}
