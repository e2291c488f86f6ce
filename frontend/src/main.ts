/** Wires the app together: editor, server call, layout, player and the view modules. */

import "./style.css";
import { ApiError, fetchExamples, fetchTrace } from "./api";
import { groupByLine, toDot, type Grouping } from "./dot";
import { Player } from "./player";
import { Replay, type Frame } from "./replay";
import { DEFAULT_CODE, decodeState, encodeState, type AppState } from "./state";
import { TraceLookup } from "./trace/lookup";
import type { Span, Trace } from "./trace/types";
import { byTestId, h } from "./view/dom";
import { CodeEditor } from "./view/editor";
import { GraphView } from "./view/graph";
import { Inspector } from "./view/inspector";
import { Layout, LayoutTimeout } from "./view/layout";
import { initTheme } from "./view/theme";

const STORAGE_KEY = "gradstep.code";
const PLAY_ICON = "M5 3v10l8-5z";
const PAUSE_ICON = "M4 3h3v10H4zM9 3h3v10H9z";

interface Loaded {
  trace: Trace;
  lookup: TraceLookup;
  replay: Replay;
  /** Source-line groups of a large graph (null when drawn whole). */
  grouping: Grouping | null;
  expanded: Set<string>;
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
  zoomIn: byTestId<HTMLButtonElement>("zoom-in"),
  zoomOut: byTestId<HTMLButtonElement>("zoom-out"),
  zoomFit: byTestId<HTMLButtonElement>("zoom-fit"),
};

initTheme(els.theme);

const layout = new Layout();
const player = new Player();
const inspector = new Inspector(els.inspector);
let loaded: Loaded | null = null;
let selected: string | null = null;
let showSaved = false;
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
  doc: savedCode(),
  onRun: () => void run(),
  onChange: (code) => {
    storeCode(code);
    scheduleUrlUpdate();
  },
  onPick: (line, col) => {
    // Clicking code selects the node that expression created (while the code is what was traced).
    if (!loaded || editor.code !== loaded.trace.code) return;
    const id = loaded.lookup.elementAt(line, col);
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
  els.narration.textContent = frame.narration;
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

/** Lays the graph out (in the worker) and puts it on screen; the current step is kept. */
async function draw(): Promise<void> {
  if (!loaded) return;
  const { trace, replay, grouping, expanded } = loaded;
  els.expandAll.hidden = grouping === null || [...grouping.groups.keys()].every((g) => expanded.has(g));
  if (trace.nodes.length === 0 && trace.tensors.length === 0) {
    graph.clear(trace.status === "ok" ? "This snippet builds no autograd graph." : "Nothing to draw: the snippet stopped before building a graph.");
  } else {
    performance.mark("gs-layout-start");
    const dot = toDot(trace, { saved: showSaved, widths: replay.widths, grouping, expanded });
    let svg: string;
    try {
      svg = await layout.render(dot);
    } catch (e) {
      if (!(e instanceof LayoutTimeout) || loaded?.trace !== trace) throw e;
      // Too big to lay out whole: fall back to groups by source line, all collapsed.
      const forced = grouping ?? groupByLine(trace, 0);
      if (!forced || (grouping && expanded.size === 0)) {
        graph.clear(`This graph is too large to draw (${e.message}).`);
        return;
      }
      loaded.grouping = forced;
      loaded.expanded = new Set();
      els.status.textContent = "This graph is too large to lay out in full: it is shown grouped by source line.";
      return draw();
    }
    if (loaded?.trace !== trace) return;
    performance.mark("gs-layout-end");
    graph.show(svg, trace, grouping, expanded);
    performance.mark("gs-draw-end");
    performance.measure("gs-layout", "gs-layout-start", "gs-layout-end");
    performance.measure("gs-draw", "gs-layout-start", "gs-draw-end");
  }
  showFrame();
  els.graph.dataset["drawn"] = String(Number(els.graph.dataset["drawn"] ?? "0") + 1);
}

async function load(trace: Trace, step: number | null): Promise<void> {
  const lookup = new TraceLookup(trace);
  const replay = new Replay(trace, lookup);
  loaded = { trace, lookup, replay, grouping: groupByLine(trace), expanded: new Set() };
  selected = null;
  showError(trace.status === "ok" ? null : describeError(trace, replay.errorStep));
  showStdout(trace);
  player.load(replay.length, step ?? replay.start);
  await draw();
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
  if (!loaded?.grouping) return;
  for (const g of loaded.grouping.groups.keys()) loaded.expanded.add(g);
  void draw();
});
els.savedToggle.addEventListener("change", () => {
  showSaved = els.savedToggle.checked;
  void draw();
});
els.share.addEventListener("click", () => {
  void encodeState(appState()).then(async (hash) => {
    history.replaceState(null, "", hash);
    try {
      await navigator.clipboard.writeText(location.href);
      els.status.textContent = "Link copied.";
    } catch {
      els.status.textContent = "Link is in the address bar.";
    }
  });
});

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
    default:
      return;
  }
  e.preventDefault();
});

// Gallery: optional, hidden when the server has none.
void fetchExamples().then((examples) => {
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

// Start: a shared link (fragment) wins over the last code typed here, and runs at once.
async function start(): Promise<void> {
  graph.clear("Press Run (Ctrl+Enter) to trace the code and draw its autograd graph.");
  inspector.clear();
  showFrame();
  if (location.hash.length > 1) {
    const state = await decodeState(location.hash, { code: editor.code, step: null, saved: false });
    if (state.code !== editor.code) editor.code = state.code;
    showSaved = state.saved;
    els.savedToggle.checked = state.saved;
    await run(state.step);
  }
}

void start();
