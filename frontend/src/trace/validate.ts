/**
 * Light structural validation of a trace from the server: fills defaults, expands bare-number values,
 * rejects what cannot be drawn.
 */

import type {
  ArrayValue,
  EdgeInfo,
  Caption,
  ErrorInfo,
  EventKind,
  NodeInfo,
  TensorInfo,
  Trace,
  TraceEvent,
  TraceStatus,
} from "./types";

export class TraceFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TraceFormatError";
  }
}

const STATUSES: readonly TraceStatus[] = ["ok", "error", "limit", "timeout"];
/** Every kind the schema defines: the Record type makes typecheck fail when the schema gains one. */
const KNOWN_KINDS: Record<EventKind, true> = {
  tensor: true,
  op: true,
  inplace: true,
  print: true,
  grad_mode: true,
  backward_begin: true,
  node_run: true,
  accumulate: true,
  grad_set: true,
  retain_grad: true,
  capture: true,
  hook: true,
  backward_end: true,
  error: true,
};
export const EVENT_KINDS = Object.keys(KNOWN_KINDS) as EventKind[];

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function arr(v: unknown, what: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new TraceFormatError(`${what} should be a list`);
  return v;
}

function str(v: unknown, what: string): string {
  if (typeof v !== "string") throw new TraceFormatError(`${what} should be a string`);
  return v;
}

function idOf(o: unknown, what: string): string {
  if (!isObj(o)) throw new TraceFormatError(`${what} should be an object`);
  return str(o["id"], `${what}.id`);
}

/** A wire value as an ArrayValue: a bare number (or NaN/infinity string) is a 0-d float32 value. */
export function expandValue(v: unknown): ArrayValue | null {
  if (v === null || v === undefined) return null;
  if (typeof v === "number" || typeof v === "string") return { shape: [], dtype: "float32", data: [v as number] };
  if (isObj(v) && Array.isArray(v["data"])) return v as unknown as ArrayValue;
  throw new TraceFormatError(`a value should be a number or an array value, not ${JSON.stringify(v)}`);
}

/** The event with each of its values expanded (see expandValue). */
function expandEvent(ev: Obj): Obj {
  const withGrad = (o: unknown): Obj => ({ ...(o as Obj), grad: expandValue((o as Obj)["grad"]) });
  switch (ev["kind"]) {
    case "inplace": {
      // An alias with `same_as` has the value of the event's tensor or of an earlier alias.
      const value = expandValue(ev["value"]);
      const seen = new Map<unknown, ArrayValue | null>([[ev["tensor"], value]]);
      const aliases = arr(ev["aliases"], "aliases").map((a) => {
        const alias = a as Obj;
        const same = alias["same_as"];
        const aliasValue = same === undefined || same === null ? expandValue(alias["value"]) : seen.get(same);
        if (aliasValue === undefined) throw new TraceFormatError(`an alias is the same as ${JSON.stringify(same)}, which is not the event's tensor or an alias before it`);
        seen.set(alias["tensor"], aliasValue);
        return { ...alias, value: aliasValue };
      });
      return { ...ev, value, aliases };
    }
    case "backward_begin":
      return { ...ev, roots: arr(ev["roots"], "backward roots").map(withGrad) };
    case "node_run":
      return {
        ...ev,
        received: arr(ev["received"], "received").map(withGrad),
        grad_outputs: arr(ev["grad_outputs"], "grad_outputs").map(expandValue),
        sent: arr(ev["sent"], "sent").map((s) => ({ ...withGrad(s), total: expandValue((s as Obj)["total"]) })),
      };
    case "accumulate":
      return {
        ...ev,
        before: expandValue(ev["before"]),
        contribution: expandValue(ev["contribution"]),
        after: expandValue(ev["after"]),
      };
    case "grad_set":
    case "retain_grad":
    case "capture":
      return withGrad(ev);
    case "hook":
      return { ...ev, result: expandValue(ev["result"]) };
    default:
      return ev;
  }
}

function tensor(o: unknown, i: number): TensorInfo {
  const id = idOf(o, `tensors[${i}]`);
  const t = o as Obj;
  return {
    ...(t as unknown as TensorInfo),
    id,
    names: arr(t["names"], `tensor ${id} names`) as string[],
    shape: arr(t["shape"], `tensor ${id} shape`) as number[],
    grad_fn: (t["grad_fn"] as string | null | undefined) ?? null,
    span: (t["span"] as TensorInfo["span"] | undefined) ?? null,
    requires_grad: Boolean(t["requires_grad"]),
    is_leaf: t["is_leaf"] === undefined ? true : Boolean(t["is_leaf"]),
    value: expandValue(t["value"]) ?? { shape: [], dtype: "float32", data: [] },
  };
}

function node(o: unknown, i: number): NodeInfo {
  const id = idOf(o, `nodes[${i}]`);
  const n = o as Obj;
  return {
    ...(n as unknown as NodeInfo),
    id,
    name: str(n["name"], `node ${id} name`),
    kind: (n["kind"] as NodeInfo["kind"] | undefined) ?? "op",
    inputs: arr(n["inputs"], `node ${id} inputs`) as (string | null)[],
    outputs: arr(n["outputs"], `node ${id} outputs`) as (string | null)[],
    variable: (n["variable"] as string | null | undefined) ?? null,
    saved: arr(n["saved"], `node ${id} saved`) as NodeInfo["saved"],
    formulas: arr(n["formulas"], `node ${id} formulas`) as (string | null)[],
    span: (n["span"] as NodeInfo["span"] | undefined) ?? null,
    created_in_pass: (n["created_in_pass"] as number | null | undefined) ?? null,
  };
}

function edge(o: unknown, i: number, nodeIds: Set<string>): EdgeInfo {
  const id = idOf(o, `edges[${i}]`);
  const e = o as Obj;
  const source = str(e["source"], `edge ${id} source`);
  const target = str(e["target"], `edge ${id} target`);
  if (!nodeIds.has(source) || !nodeIds.has(target)) {
    throw new TraceFormatError(`edge ${id} joins unknown nodes ${source} -> ${target}`);
  }
  return {
    ...(e as unknown as EdgeInfo),
    id,
    source,
    target,
    input_nr: typeof e["input_nr"] === "number" ? e["input_nr"] : 0,
    formula: (e["formula"] as string | null | undefined) ?? null,
    local: isObj(e["local"])
      ? ({ ...e["local"], value: expandValue(e["local"]["value"]) } as unknown as EdgeInfo["local"])
      : null,
  };
}

/** Turns parsed JSON into a Trace, or throws TraceFormatError saying what is wrong. */
export function validateTrace(raw: unknown): Trace {
  if (!isObj(raw)) throw new TraceFormatError("trace should be a JSON object");
  const status = raw["status"];
  if (typeof status !== "string" || !STATUSES.includes(status as TraceStatus)) {
    throw new TraceFormatError(`unknown trace status ${JSON.stringify(status)}`);
  }
  const tensors = arr(raw["tensors"], "tensors").map(tensor);
  const nodes = arr(raw["nodes"], "nodes").map(node);
  const nodeIds = new Set(nodes.map((n) => n.id));
  const edges = arr(raw["edges"], "edges").map((e, i) => edge(e, i, nodeIds));
  const notes = (arr(raw["notes"], "notes") as string[]).slice();
  const events: TraceEvent[] = [];
  for (const ev of arr(raw["events"], "events")) {
    if (!isObj(ev) || !EVENT_KINDS.includes(ev["kind"] as EventKind)) {
      notes.push(`skipped an event of unknown kind ${JSON.stringify(isObj(ev) ? ev["kind"] : ev)}`);
      continue;
    }
    // pydantic names the field pass_ unless the server dumps by alias.
    const fixed = "pass_" in ev && !("pass" in ev) ? { ...ev, pass: ev["pass_"] } : ev;
    events.push(expandEvent(fixed) as unknown as TraceEvent);
  }
  return {
    version: typeof raw["version"] === "string" ? raw["version"] : "?",
    status: status as TraceStatus,
    code: typeof raw["code"] === "string" ? raw["code"] : "",
    stdout: typeof raw["stdout"] === "string" ? raw["stdout"] : "",
    error: isObj(raw["error"]) ? (raw["error"] as unknown as ErrorInfo) : null,
    tensors,
    nodes,
    edges,
    events,
    notes,
    captions: arr(raw["captions"], "captions").filter(
      (c): c is Caption => isObj(c) && typeof c["line"] === "number" && typeof c["text"] === "string",
    ),
  };
}
