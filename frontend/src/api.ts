/** Talks to the server: POST code for a trace, GET the example gallery. */

import { validateTrace } from "./trace/validate";
import type { Example, Trace } from "./trace/types";

const BASE = "api/v1";

export class ApiError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ApiError";
  }
}

export async function fetchTrace(code: string, signal?: AbortSignal): Promise<Trace> {
  let res: Response;
  try {
    res = await fetch(`${BASE}/trace`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ code }),
      ...(signal ? { signal } : {}),
    });
  } catch (e) {
    if (e instanceof DOMException && e.name === "AbortError") throw e;
    throw new ApiError("Cannot reach the gradstep server.");
  }
  if (!res.ok) {
    let detail = `${res.status} ${res.statusText}`;
    try {
      const body = (await res.json()) as { detail?: unknown };
      if (typeof body.detail === "string") detail = body.detail;
    } catch {
      /* keep the status line */
    }
    throw new ApiError(`The server refused the request: ${detail}`);
  }
  return validateTrace(await res.json());
}

/** The gallery; an empty list when the server has none (404) or is unreachable. */
export async function fetchExamples(): Promise<Example[]> {
  try {
    const res = await fetch(`${BASE}/examples`);
    if (!res.ok) return [];
    const body: unknown = await res.json();
    const list = Array.isArray(body) ? body : ((body as { examples?: unknown }).examples ?? []);
    if (!Array.isArray(list)) return [];
    return list.filter(
      (e): e is Example =>
        typeof e === "object" && e !== null && typeof e.id === "string" && typeof e.code === "string",
    ).map((e) => ({ id: e.id, title: typeof e.title === "string" ? e.title : e.id, code: e.code }));
  } catch {
    return [];
  }
}
