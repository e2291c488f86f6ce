/** Entry of the single-file lesson: the trace is inside the page, Graphviz runs on the main thread. */

import { startApp } from "./app";
import type { OfflineData } from "./offline-data";
import { validateTrace } from "./trace/validate";
import type { Trace } from "./trace/types";
import { InlineLayout } from "./view/layout-inline";

function readData(): { data: OfflineData | null; trace: Trace | null } {
  const text = document.getElementById("gradstep-data")?.textContent?.trim() ?? "";
  if (!text.startsWith("{")) return { data: null, trace: null }; // the empty template
  const data = JSON.parse(text) as OfflineData;
  return { data, trace: validateTrace(data.trace) };
}

const { data, trace } = readData();
(window as unknown as { gradstep: unknown }).gradstep = startApp({ mode: "offline", layout: new InlineLayout(), data, trace });
