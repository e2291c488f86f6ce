/**
 * The trace as the app uses it: the generated wire types (generated.ts, from server/schema.py's JSON
 * Schema) with the defaults validate.ts fills in made required, so no reader re-checks for `undefined`,
 * and every value an ArrayValue (on the wire a 0-d float32 value is a bare number; validate.ts expands it).
 */

import type * as Wire from "./generated";

export type { Wire };

/** T with the keys K present (their schema defaults filled in by validateTrace). */
type Filled<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: Exclude<T[P], undefined> };

/** Every event carries its `kind` (the schema marks it optional only because it has a default). */
type Kinded<T> = T extends { kind?: infer K } ? Omit<T, "kind"> & { kind: Exclude<K, undefined> } : never;

export type ArrayValue = Wire.ArrayValue;
export type JsonNumber = ArrayValue["data"][number];

/** T with each wire value (bare number or ArrayValue) as an ArrayValue; saved slots keep their own union. */
type Expanded<T> = [T] extends [Wire.SavedInfo]
  ? T
  : [Extract<T, Wire.ArrayValue>] extends [never]
    ? T extends readonly (infer E)[]
      ? Expanded<E>[]
      : T extends object
        ? { [K in keyof T]: Expanded<T[K]> }
        : T
    : Exclude<T, number | string | Wire.ArrayValue> | ArrayValue;
export type Span = Wire.Span;
export type SavedInfo = Wire.SavedInfo;
export type LocalGradient = Expanded<Wire.LocalGradient>;
export type ErrorInfo = Wire.ErrorInfo;
export type Caption = Wire.Caption;

export type TensorInfo = Filled<Expanded<Wire.TensorInfo>, "names" | "grad_fn" | "span">;
export type NodeInfo = Filled<
  Wire.NodeInfo,
  "inputs" | "outputs" | "variable" | "saved" | "formulas" | "span" | "created_in_pass"
>;
export type NodeKind = NodeInfo["kind"];
export type EdgeInfo = Filled<Expanded<Wire.EdgeInfo>, "formula" | "local">;

export type TraceEvent = Kinded<Expanded<NonNullable<Wire.Trace["events"]>[number]>>;
export type EventKind = TraceEvent["kind"];
export type EventOf<K extends EventKind> = Extract<TraceEvent, { kind: K }>;

export type TensorCreated = EventOf<"tensor">;
export type OpApplied = EventOf<"op">;
export type InplaceChanged = EventOf<"inplace">;
export type Printed = EventOf<"print">;
export type GradModeChanged = EventOf<"grad_mode">;
export type BackwardBegan = EventOf<"backward_begin">;
export type NodeRan = EventOf<"node_run">;
export type GradAccumulated = EventOf<"accumulate">;
export type GradSet = EventOf<"grad_set">;
export type GradRetained = EventOf<"retain_grad">;
export type GradCaptured = EventOf<"capture">;
export type HookFired = EventOf<"hook">;
export type BackwardEnded = EventOf<"backward_end">;
export type ErrorRaised = EventOf<"error">;
export type Seed = Expanded<Wire.Seed>;
export type Contribution = Expanded<Wire.Contribution>;
export type Sent = NodeRan["sent"][number];

export type TraceStatus = Wire.Trace["status"];

export interface Trace {
  version: string;
  status: TraceStatus;
  code: string;
  stdout: string;
  error: ErrorInfo | null;
  tensors: TensorInfo[];
  nodes: NodeInfo[];
  edges: EdgeInfo[];
  events: TraceEvent[];
  notes: string[];
  /** Lesson captions from `# step: ...` comments, by source line. */
  captions: Caption[];
}

/** An example from GET /api/v1/examples (not part of the trace schema). */
export interface Example {
  id: string;
  title: string;
  code: string;
}
