/**
 * Wires the app together: editor, server call, layout, player and the view modules. One app, three
 * modes: the full editor (`/`), the chrome-less embed (`/embed`) and the single-file offline lesson.
 */

import "./style.css";
import { ApiError, fetchExamples, fetchTrace } from "./api";
import { groupByLine, toDot, type Grouping } from "./dot";
import { DEFAULT_PANES, PANES, parseEmbedOptions, shareSnippets, type EmbedOptions, type HeightMessage, type Pane } from "./embed";
import { iterationLabel, iterationWindows, nextPassStart, passStarts, previousPassStart, windowAt, windowTrace, type IterationWindow } from "./iterations";
import { fillTemplate, type OfflineData } from "./offline-data";
import { Player } from "./player";
import { Replay, type Frame } from "./replay";
import { DEFAULT_CODE, decodeState, encodeState, type AppState } from "./state";
import { TraceLookup } from "./trace/lookup";
import type { Span, Trace } from "./trace/types";
import { byTestId, h } from "./view/dom";
import { CodeEditor } from "./view/editor";
import { GraphView } from "./view/graph";
import { Inspector } from "./view/inspector";
import { LayoutTimeout, type GraphLayout } from "./view/layout-timeout";
import { ShareDialog } from "./view/share";
import { download, graphPng, graphSvg } from "./view/snapshot";
import { initTheme } from "./view/theme";

export type Mode = "full" | "embed" | "offline";

export interface AppOptions {
  mode: Mode;
  layout: GraphLayout;
  /** Offline mode: the lesson's data, shipped inside the page. */
  data?: OfflineData | null;
  /** Offline mode: the trace, already validated. */
  trace?: Trace | null;
}

/** What tests, the CLI's image export and curious users can drive: `window.gradstep`. */
export interface PageApi {
  mode: Mode;
  /** Resolves once the first trace is drawn. */
  ready: Promise<void>;
  readonly steps: number;
  readonly step: number;
  /** The code in the editor (or the code pane). */
  readonly code: string;
  /** Moves to a step; resolves once the graph drawn is the one for that step. */
  seek(step: number): Promise<void>;
  svg(): string;
  png(scale?: number): Promise<string>;
}

export function startApp(options: AppOptions): PageApi {

const STORAGE_KEY = "gradstep.code";
const PLAY_ICON = "M5 3v10l8-5z";
const PAUSE_ICON = "M4 3h3v10H4zM9 3h3v10H9z";

/** What the graph view draws: the whole trace, or one iteration of a training loop. */
interface Scene {
  /** "all", or "w<index>" for one iteration window. */
  id: string;
  /** The iteration drawn (null: the whole graph). */
  window: IterationWindow | null;
  trace: Trace;
  /** Source-line groups of a large graph (null when drawn whole). */
  grouping: Grouping | null;
}

interface Loaded {
  trace: Trace;
  lookup: TraceLookup;
  replay: Replay;
  expanded: Set<string>;
  /** The iterations of a loop that builds a new graph per backward pass (null: drawn whole). */
  iterations: IterationWindow[] | null;
  passStarts: number[];
  scenes: Map<string, Scene>;
  /** Laid-out SVG per scene and drawing options, so going back to an iteration is instant. */
  svgs: Map<string, string>;
  /** Layout key of what is on screen, and the drawings under way. */
  drawnKey: string | null;
  drawing: Map<string, Promise<void>>;
}

const els = {
  run: byTestId<HTMLButtonElement>("run"),
  share: byTestId<HTMLButtonElement>("share"),
  theme: byTestId<HTMLButtonElement>("theme"),
  editor: byTestId("editor"),
  error: byTestId("error"),
  errorText: byTestId("error-text"),
  gotoError: byTestId<HTMLButtonElement>("goto-error"),
  status: byTestId("status"),
  stdout: byTestId<HTMLPreElement>("stdout"),
  notes: byTestId<HTMLUListElement>("notes"),
  graph: byTestId("graph"),
  first: byTestId<HTMLButtonElement>("step-first"),
  prev: byTestId<HTMLButtonElement>("step-prev"),
  play: byTestId<HTMLButtonElement>("play"),
  next: byTestId<HTMLButtonElement>("step-next"),
  last: byTestId<HTMLButtonElement>("step-last"),
  counter: byTestId("step-counter"),
  phase: byTestId("phase"),
  scrubber: byTestId<HTMLInputElement>("scrubber"),
  speed: byTestId<HTMLSelectElement>("speed"),
  narration: byTestId("narration"),
  sum: byTestId("sum"),
  inspector: byTestId("inspector"),
  gallery: byTestId<HTMLSelectElement>("gallery"),
  savedToggle: byTestId<HTMLInputElement>("toggle-saved"),
  expandAll: byTestId<HTMLButtonElement>("expand-all"),
  iterationBar: byTestId("iteration-bar"),
  iteration: byTestId("iteration"),
  allIterations: byTestId<HTMLInputElement>("toggle-all-iterations"),
  zoomIn: byTestId<HTMLButtonElement>("zoom-in"),
  zoomOut: byTestId<HTMLButtonElement>("zoom-out"),
  zoomFit: byTestId<HTMLButtonElement>("zoom-fit"),
  openFull: byTestId<HTMLAnchorElement>("open-full"),
  downloadHtml: byTestId<HTMLButtonElement>("download-html"),
  exportSvg: byTestId<HTMLButtonElement>("export-svg"),
  exportPng: byTestId<HTMLButtonElement>("export-png"),
};

const mode = options.mode;
const root = document.documentElement;
root.classList.add(`mode-${mode}`);
// Embeds and offline lessons read their options from the query (`?title=&step=&autoplay=&theme=&panes=`).
const embed: EmbedOptions = parseEmbedOptions(mode === "full" ? "" : location.search);
if (mode === "offline" && !location.search.includes("panes=")) {
  embed.panes = new Set(options.data?.panes?.length ? options.data.panes : [...DEFAULT_PANES, "code", "inspector"]);
}
if (mode !== "full") {
  for (const p of PANES) root.classList.toggle(`hide-${p}`, !embed.panes.has(p as Pane));
}
const lessonTitle = embed.title ?? (mode === "offline" ? (options.data?.title ?? null) : null);
if (lessonTitle) {
  document.title = `${lessonTitle} · gradstep`;
  byTestId("title").textContent = lessonTitle;
}
initTheme(els.theme, embed.theme === "auto" ? null : embed.theme);

const layout = options.layout;
const player = new Player();
const inspector = new Inspector(els.inspector);
let loaded: Loaded | null = null;
let selected: string | null = null;
let showSaved = false;
let showAllIterations = false;
let running: AbortController | null = null;
let runCount = 0;

const graph = new GraphView(els.graph, {
  onSelect: (id) => {
    selected = id;
    refreshInspector();
  },
  onExpand: (groupId) => {
    if (!loaded) return;
    loaded.expanded.add(groupId);
    void draw();
  },
});

function savedCode(): string {
  try {
    return localStorage.getItem(STORAGE_KEY) ?? DEFAULT_CODE;
  } catch {
    return DEFAULT_CODE;
  }
}

function storeCode(code: string): void {
  try {
    localStorage.setItem(STORAGE_KEY, code);
  } catch {
    /* private mode: the URL fragment still keeps it */
  }
}

const editor = new CodeEditor({
  parent: els.editor,
  readOnly: mode !== "full",
  doc: mode === "full" ? savedCode() : (options.trace?.code ?? ""),
  onRun: () => void run(),
  onChange: (code) => {
    if (mode !== "full") return;
    storeCode(code);
    scheduleUrlUpdate();
  },
  onPick: (line, col) => {
    // Clicking code selects the node that expression created (while the code is what was traced).
    if (!loaded || editor.code !== loaded.trace.code) return;
    const id = loaded.lookup.elementAt(line, col, sceneAt(loaded, player.current.step).window?.ids);
    if (id) graph.select(id);
  },
});

function currentFrame(): Frame | null {
  if (!loaded) return null;
  return loaded.replay.frame(player.current.step);
}

function refreshInspector(): void {
  const frame = currentFrame();
  if (!loaded || !frame) return inspector.clear();
  inspector.show(selected, frame, loaded.lookup);
}

function phaseText(frame: Frame, replay: Replay): string {
  if (frame.error) return "Error";
  const passes = replay.passCount;
  const of = passes > 1 ? ` of ${passes}` : "";
  if (frame.phase === "forward") return "Forward";
  if (frame.phase === "backward") return `Backward ${frame.pass ?? ""}${of}`;
  return `After backward ${frame.pass ?? ""}${of}`;
}

function showFrame(): void {
  if (redrawForStep()) return;
  performance.mark("gs-step-start");
  const frame = currentFrame();
  const s = player.current;
  els.counter.textContent = `Step ${s.total === 0 ? 0 : s.step + 1} / ${s.total}`;
  els.scrubber.max = String(Math.max(0, s.total - 1));
  els.scrubber.value = String(s.step);
  els.scrubber.setAttribute("aria-valuetext", `Step ${s.step + 1} of ${s.total}`);
  const icon = els.play.querySelector("path");
  if (icon) icon.setAttribute("d", s.playing ? PAUSE_ICON : PLAY_ICON);
  els.play.setAttribute("aria-label", s.playing ? "Pause (Space)" : "Play (Space)");
  els.play.setAttribute("aria-pressed", String(s.playing));
  const noSteps = s.total <= 1;
  els.first.disabled = noSteps || s.step === 0;
  els.prev.disabled = noSteps || s.step === 0;
  els.next.disabled = noSteps || s.step >= s.total - 1;
  els.last.disabled = noSteps || s.step >= s.total - 1;
  els.play.disabled = noSteps;
  els.scrubber.disabled = noSteps;
  if (!loaded || !frame) {
    els.narration.textContent = "";
    els.phase.textContent = "";
    els.sum.hidden = true;
    return;
  }
  graph.apply(frame);
  showIteration(loaded, s.step);
  showNarration(frame);
  els.phase.textContent = phaseText(frame, loaded.replay);
  els.phase.dataset["phase"] = frame.error ? "error" : frame.phase;
  els.sum.hidden = !frame.sum;
  els.sum.textContent = frame.sum ?? "";
  const errorStep = loaded.replay.errorStep;
  els.error.classList.toggle("at-step", frame.error !== null);
  els.gotoError.hidden = errorStep === null || errorStep === s.step;
  editor.mark({
    errorLine: loaded.trace.error?.line ?? null,
    errorSpan: errorSpan(loaded.trace),
    current: frame.span,
  });
  refreshInspector();
  scheduleUrlUpdate();
  performance.mark("gs-step-end");
  performance.measure("gs-step", "gs-step-start", "gs-step-end");
}

function showNarration(frame: Frame): void {
  if (frame.caption) {
    els.narration.replaceChildren(
      h("strong", { class: "caption", "data-testid": "caption", text: frame.caption }),
      " ",
      h("span", { text: frame.narration }),
    );
  } else {
    els.narration.textContent = frame.narration;
  }
}

function errorSpan(trace: Trace): Span | null {
  const e = trace.error;
  if (!e || !e.line) return null;
  return {
    line: e.line,
    col: e.col ?? 1,
    end_line: e.end_line ?? e.line,
    end_col: e.end_col ?? (e.col ?? 1) + 1,
  };
}

player.subscribe(showFrame);

function showError(text: string | null): void {
  els.error.hidden = text === null;
  els.errorText.textContent = text ?? "";
  els.error.classList.remove("at-step");
  els.gotoError.hidden = true;
}

function showStdout(trace: Trace | null): void {
  const box = els.stdout.closest("details");
  const text = trace?.stdout ?? "";
  if (box) box.hidden = text.length === 0;
  els.stdout.textContent = text;
  const notes = trace?.notes ?? [];
  els.notes.hidden = notes.length === 0;
  els.notes.replaceChildren(...notes.map((n) => h("li", { text: n })));
}

function describeError(trace: Trace, step: number | null): string {
  const e = trace.error;
  if (!e) {
    if (trace.status === "timeout") return "TimeoutError: the snippet ran too long and was stopped.";
    if (trace.status === "limit") return "LimitError: the snippet went over a size limit.";
    return `Error: the run ended with status ${trace.status}.`;
  }
  const where = e.line ? ` (line ${e.line}${e.col ? `, column ${e.col}` : ""}` : "";
  const at = step !== null ? `${where ? ", " : " ("}step ${step + 1})` : where ? ")" : "";
  return `${e.type}: ${e.message}${where}${at}`;
}

/** The scene drawn at a step: its iteration window, or the whole graph. */
function sceneAt(l: Loaded, step: number): Scene {
  const w = l.iterations && !showAllIterations ? windowAt(l.iterations, step) : null;
  const id = w ? `w${w.index}` : "all";
  let scene = l.scenes.get(id);
  if (!scene) {
    const trace = w ? windowTrace(l.trace, w) : l.trace;
    scene = { id, window: w, trace, grouping: groupByLine(trace) };
    l.scenes.set(id, scene);
  }
  return scene;
}

/** Identifies one layout: the scene, its grouping and the options that change the DOT. */
function layoutKey(l: Loaded, scene: Scene): string {
  const groups = scene.grouping ? [...l.expanded].filter((g) => scene.grouping!.groups.has(g)).sort().join(",") : "-";
  return `${scene.id}|saved=${showSaved ? 1 : 0}|groups=${groups}`;
}

/** When the player moved into another iteration, draws it (at once from the cache); true if that showed the step. */
function redrawForStep(): boolean {
  const l = loaded;
  if (!l || l.drawnKey === null) return false;
  const key = layoutKey(l, sceneAt(l, player.current.step));
  if (key === l.drawnKey || l.drawing.has(key)) return false;
  void draw();
  return l.drawnKey === key;
}

function showIteration(l: Loaded, step: number): void {
  const windows = l.iterations;
  els.iterationBar.hidden = windows === null;
  if (windows) els.iteration.textContent = iterationLabel(windows, step);
}

/** Lays out the current step's scene (in the worker, or from the cache) and puts it on screen. */
function draw(): Promise<void> {
  const l = loaded;
  if (!l) return Promise.resolve();
  const scene = sceneAt(l, player.current.step);
  const key = layoutKey(l, scene);
  const under = l.drawing.get(key);
  if (under) return under;
  const job = drawScene(l, scene, key);
  l.drawing.set(key, job);
  void job.finally(() => {
    if (l.drawing.get(key) === job) l.drawing.delete(key);
  });
  return job;
}

async function drawScene(l: Loaded, scene: Scene, key: string): Promise<void> {
  const { trace, grouping } = scene;
  els.expandAll.hidden = grouping === null || [...grouping.groups.keys()].every((g) => l.expanded.has(g));
  if (trace.nodes.length === 0 && trace.tensors.length === 0) {
    graph.clear(trace.status === "ok" ? "This snippet builds no autograd graph." : "Nothing to draw: the snippet stopped before building a graph.");
  } else {
    let svg = l.svgs.get(key);
    if (svg === undefined) {
      performance.mark("gs-layout-start");
      const dot = toDot(trace, { saved: showSaved, widths: l.replay.widths, grouping, expanded: l.expanded });
      try {
        svg = await layout.render(dot);
      } catch (e) {
        if (!(e instanceof LayoutTimeout) || loaded !== l) throw e;
        // Too big to lay out whole: fall back to groups by source line, all collapsed.
        const forced = grouping ?? groupByLine(trace, 0);
        if (!forced || (grouping && l.expanded.size === 0)) {
          graph.clear(`This graph is too large to draw (${e.message}).`);
          l.drawnKey = key;
          return;
        }
        scene.grouping = forced;
        l.expanded = new Set();
        els.status.textContent = "This graph is too large to lay out in full: it is shown grouped by source line.";
        return draw();
      }
      if (loaded !== l) return;
      performance.mark("gs-layout-end");
      performance.measure("gs-layout", "gs-layout-start", "gs-layout-end");
      l.svgs.set(key, svg);
      // The player moved on to another iteration while this one was laid out: draw that one instead.
      const wanted = layoutKey(l, sceneAt(l, player.current.step));
      if (wanted !== key) return wanted === l.drawnKey ? undefined : draw();
    }
    graph.show(svg, trace, grouping, l.expanded);
    if (selected) graph.select(selected); // the inspector's element stays marked in the new drawing
  }
  l.drawnKey = key;
  showFrame();
  els.graph.dataset["drawn"] = String(Number(els.graph.dataset["drawn"] ?? "0") + 1);
}

/** Resolves once no drawing is under way (the graph on screen is the current step's). */
async function graphSettled(): Promise<void> {
  for (let l = loaded; l && l.drawing.size > 0; l = loaded) await Promise.allSettled([...l.drawing.values()]);
}

async function load(trace: Trace, step: number | null): Promise<void> {
  const lookup = new TraceLookup(trace);
  const replay = new Replay(trace, lookup);
  const iterations = iterationWindows(trace);
  loaded = {
    trace,
    lookup,
    replay,
    expanded: new Set(),
    iterations,
    passStarts: passStarts(trace),
    scenes: new Map(),
    svgs: new Map(),
    drawnKey: null,
    drawing: new Map(),
  };
  selected = null;
  showError(trace.status === "ok" ? null : describeError(trace, replay.errorStep));
  showStdout(trace);
  player.load(replay.length, step ?? replay.start);
  await draw();
  markReady();
}

async function run(step: number | null = null): Promise<void> {
  running?.abort();
  const controller = new AbortController();
  running = controller;
  const mine = ++runCount;
  player.pause();
  els.run.disabled = true;
  els.status.textContent = "Running…";
  performance.mark("gs-run-start");
  try {
    const trace = await fetchTrace(editor.code, controller.signal);
    if (mine !== runCount) return;
    performance.mark("gs-trace-received");
    await load(trace, step);
    performance.measure("gs-run-to-graph", "gs-run-start");
    els.status.textContent = `Traced: ${trace.nodes.length} nodes, ${player.current.total} steps.`;
  } catch (e) {
    if (mine !== runCount || (e instanceof DOMException && e.name === "AbortError")) return;
    const message = e instanceof ApiError ? e.message : `Could not show the trace: ${String(e)}`;
    showError(message);
    els.status.textContent = "";
  } finally {
    if (mine === runCount) els.run.disabled = false;
  }
}

// URL fragment: code, step and options, updated quietly as the user works.
let urlTimer: ReturnType<typeof setTimeout> | null = null;
function appState(): AppState {
  return { code: editor.code, step: loaded ? player.current.step : null, saved: showSaved };
}
function scheduleUrlUpdate(): void {
  if (mode === "embed") updateOpenLink();
  if (mode !== "full") return;
  if (urlTimer) clearTimeout(urlTimer);
  urlTimer = setTimeout(() => {
    void encodeState(appState()).then((hash) => history.replaceState(null, "", hash));
  }, 300);
}

// Controls.
els.run.addEventListener("click", () => void run());
els.first.addEventListener("click", () => player.first());
els.prev.addEventListener("click", () => player.prev());
els.next.addEventListener("click", () => player.next());
els.last.addEventListener("click", () => player.last());
els.play.addEventListener("click", () => player.toggle());
els.scrubber.addEventListener("input", () => player.seek(Number(els.scrubber.value)));
els.speed.addEventListener("change", () => player.setSpeed(Number(els.speed.value)));
els.zoomIn.addEventListener("click", () => graph.zoomBy(1.25));
els.zoomOut.addEventListener("click", () => graph.zoomBy(0.8));
els.zoomFit.addEventListener("click", () => graph.fit());
els.gotoError.addEventListener("click", () => {
  const step = loaded?.replay.errorStep;
  if (step !== null && step !== undefined) {
    player.pause();
    player.seek(step);
  }
});
els.expandAll.addEventListener("click", () => {
  if (!loaded) return;
  const grouping = sceneAt(loaded, player.current.step).grouping;
  if (!grouping) return;
  for (const g of grouping.groups.keys()) loaded.expanded.add(g);
  void draw();
});
els.allIterations.addEventListener("change", () => {
  showAllIterations = els.allIterations.checked;
  void draw();
});
els.savedToggle.addEventListener("change", () => {
  showSaved = els.savedToggle.checked;
  void draw();
});
const share = mode === "full" ? new ShareDialog((title) => shareSnippets({ base: appBase(), state: appState(), title })) : null;
els.share.addEventListener("click", () => {
  const state = appState();
  void encodeState(state).then((hash) => history.replaceState(null, "", hash));
  void share?.open();
});

/** The full editor's address: this page's directory (the embed lives at <base>/embed). */
function appBase(): string {
  return new URL("./", location.href).href;
}

// The embed's "Open in gradstep" link carries the code, the step and the options to the full editor.
let linkVersion = 0;
function updateOpenLink(): void {
  const mine = ++linkVersion;
  void encodeState(appState()).then((hash) => {
    if (mine === linkVersion) els.openFull.href = `${appBase()}${hash}`;
  });
}

// Images of the current step, and the whole lesson as one HTML file.
function stepName(ext: string): string {
  return `gradstep-step-${String(player.current.step + 1).padStart(3, "0")}.${ext}`;
}
els.exportSvg.addEventListener("click", () => {
  try {
    download(stepName("svg"), graphSvg(els.graph), "image/svg+xml");
  } catch (e) {
    els.status.textContent = String(e instanceof Error ? e.message : e);
  }
});
els.exportPng.addEventListener("click", () => {
  graphPng(els.graph).then(
    (url) => download(stepName("png"), url),
    (e: unknown) => (els.status.textContent = String(e instanceof Error ? e.message : e)),
  );
});
els.downloadHtml.addEventListener("click", () => void downloadLesson());

async function downloadLesson(): Promise<void> {
  if (!loaded) {
    els.status.textContent = "Run the code first: the lesson file replays its trace.";
    return;
  }
  try {
    const res = await fetch("offline.html");
    if (!res.ok) throw new Error(`the offline template is missing (${res.status})`);
    const html = fillTemplate(await res.text(), { trace: loaded.trace, step: player.current.step });
    download("gradstep-lesson.html", html, "text/html");
    els.status.textContent = "Lesson file saved: it works offline, in one file.";
  } catch (e) {
    els.status.textContent = `Could not make the lesson file: ${e instanceof Error ? e.message : String(e)}`;
  }
}

/** PageDown/PageUp: to the start of another backward pass, if there is one. */
function jumpTo(step: number | null): void {
  if (step === null) return;
  player.pause();
  player.seek(step);
}

function inEditable(target: EventTarget | null): boolean {
  if (!(target instanceof Element)) return false;
  return !!target.closest(".cm-editor, input, select, textarea, button, [contenteditable], summary");
}

document.addEventListener("keydown", (e) => {
  if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) {
    if ((e.ctrlKey || e.metaKey) && e.key === "Enter" && !inEditable(e.target)) {
      e.preventDefault();
      void run();
    }
    return;
  }
  // On a button, space and Enter press it; the arrows and Home/End still step.
  const onButton = e.target instanceof HTMLButtonElement || (e.target instanceof Element && e.target.tagName === "SUMMARY");
  if (inEditable(e.target) && !(onButton && e.key !== " " && e.key !== "Enter")) return;
  switch (e.key) {
    case "ArrowRight":
      player.next();
      break;
    case "ArrowLeft":
      player.prev();
      break;
    case " ":
      player.toggle();
      break;
    case "Home":
      player.first();
      break;
    case "End":
      player.last();
      break;
    case "PageDown":
      jumpTo(loaded ? nextPassStart(loaded.passStarts, player.current.step) : null);
      break;
    case "PageUp":
      jumpTo(loaded ? previousPassStart(loaded.passStarts, player.current.step) : null);
      break;
    default:
      return;
  }
  e.preventDefault();
});

// Gallery: optional, hidden when the server has none.
if (mode === "full") void fetchExamples().then((examples) => {
  if (examples.length === 0) return;
  for (const ex of examples) els.gallery.append(h("option", { value: ex.id, text: ex.title }));
  const label = els.gallery.closest("label");
  if (label) label.hidden = false;
  els.gallery.addEventListener("change", () => {
    const ex = examples.find((x) => x.id === els.gallery.value);
    if (!ex) return;
    editor.code = ex.code;
    void run();
  });
});

// Height messages: an embedding page can size the iframe to fit (see README, "Embedding").
function reportHeight(): void {
  if (window.parent === window) return;
  let last = -1;
  const send = (): void => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    const message: HeightMessage = { type: "gradstep:height", height, id: embed.id };
    window.parent.postMessage(message, "*");
  };
  if (typeof ResizeObserver === "function") new ResizeObserver(send).observe(document.documentElement);
  send();
}

let markReady: () => void = () => undefined;
const ready = new Promise<void>((resolve) => (markReady = resolve));

function startStep(fromUrl: number | null): number | null {
  return embed.step ?? fromUrl;
}

// Start: a shared link (fragment) wins over the last code typed here, and runs at once.
async function start(): Promise<void> {
  graph.clear(mode === "full" ? "Press Run (Ctrl+Enter) to trace the code and draw its autograd graph." : "Loading…");
  inspector.clear();
  showFrame();
  if (mode !== "full") reportHeight();
  if (mode === "offline") {
    if (!options.trace) {
      graph.clear("This file has no trace in it.");
      return;
    }
    if (!options.trace.code.trim()) root.classList.add("hide-code");
    await load(options.trace, startStep(options.data?.step ?? null));
    if (embed.autoplay) player.play();
    return;
  }
  if (mode === "embed" || location.hash.length > 1) {
    const fallback = { code: mode === "embed" ? "" : editor.code, step: null, saved: false };
    const state = await decodeState(location.hash, fallback);
    if (state.code !== editor.code) editor.code = state.code;
    showSaved = state.saved;
    els.savedToggle.checked = state.saved;
    if (mode === "embed" && !state.code.trim()) {
      graph.clear("This embed has no code: its URL needs a #c=... fragment (copy it from the Share dialog).");
      return;
    }
    await run(startStep(state.step));
    if (embed.autoplay) player.play();
  }
}

void start();

return {
  mode,
  ready,
  get steps() {
    return player.current.total;
  },
  get step() {
    return player.current.step;
  },
  get code() {
    return editor.code;
  },
  seek(step: number) {
    player.pause();
    player.seek(step);
    return graphSettled();
  },
  svg: () => graphSvg(els.graph),
  png: (scale = 2) => graphPng(els.graph, scale),
};
}
