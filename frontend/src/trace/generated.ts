/**
 * The trace contract, generated from src/trace/schema.json by `npm run gen:types`. Do not edit:
 * regenerate after the server's schema changes (test/schema.test.ts fails while this file is stale).
 */

export interface Trace {
  version?: string;
  status: "ok" | "error" | "limit" | "timeout";
  code: string;
  stdout?: string;
  error?: ErrorInfo | null;
  tensors?: TensorInfo[];
  nodes?: NodeInfo[];
  edges?: EdgeInfo[];
  events?: (
    | TensorCreated
    | OpApplied
    | InplaceChanged
    | Printed
    | GradModeChanged
    | BackwardBegan
    | NodeRan
    | GradAccumulated
    | GradSet
    | GradRetained
    | GradCaptured
    | HookFired
    | BackwardEnded
    | ErrorRaised
  )[];
  notes?: string[];
  captions?: Caption[];
}
export interface ErrorInfo {
  type: string;
  message: string;
  line?: number | null;
  col?: number | null;
  end_line?: number | null;
  end_col?: number | null;
  node?: string | null;
  saved_slot?: string | null;
  expected_version?: number | null;
  actual_version?: number | null;
}
export interface TensorInfo {
  id: string;
  names?: string[];
  shape: number[];
  dtype: string;
  requires_grad: boolean;
  is_leaf: boolean;
  grad_fn?: string | null;
  value: number | ("NaN" | "Infinity" | "-Infinity") | ArrayValue;
  span?: Span | null;
  is_param?: boolean;
}
/**
 * A tensor's values, flattened row-major (a complex element as [real, imaginary]). Over the size
 * cap only the first elements are kept.
 */
export interface ArrayValue {
  shape: number[];
  dtype: string;
  data: (
    | number
    | boolean
    | ("NaN" | "Infinity" | "-Infinity")
    | [number | ("NaN" | "Infinity" | "-Infinity"), number | ("NaN" | "Infinity" | "-Infinity")]
  )[];
  truncated?: boolean;
  min?: number | boolean | ("NaN" | "Infinity" | "-Infinity") | null;
  max?: number | boolean | ("NaN" | "Infinity" | "-Infinity") | null;
  mean?: number | boolean | ("NaN" | "Infinity" | "-Infinity") | null;
}
/**
 * A source range; lines and columns count from 1, end_col is one past the last character.
 */
export interface Span {
  line: number;
  col: number;
  end_line: number;
  end_col: number;
}
export interface NodeInfo {
  id: string;
  name: string;
  kind: "op" | "accumulate" | "custom";
  op?: string | null;
  inputs?: (string | null)[];
  outputs?: (string | null)[];
  variable?: string | null;
  saved?: SavedInfo[];
  formulas?: (string | null)[];
  span?: Span | null;
  created_in_pass?: number | null;
}
export interface SavedInfo {
  slot: string;
  tensor?: string | null;
  value?:
    | ArrayValue
    | number
    | boolean
    | ("NaN" | "Infinity" | "-Infinity")
    | (number | boolean | ("NaN" | "Infinity" | "-Infinity"))[]
    | string
    | null;
  version?: number | null;
}
/**
 * Backward direction: gradient flows from `source` (the consumer) to `target` (next function).
 */
export interface EdgeInfo {
  id: string;
  source: string;
  target: string;
  input_nr: number;
  output_nr?: number;
  formula?: string | null;
  local?: LocalGradient | null;
}
export interface LocalGradient {
  kind: "elementwise" | "jacobian";
  value: number | ("NaN" | "Infinity" | "-Infinity") | ArrayValue;
}
export interface TensorCreated {
  kind: "tensor";
  tensor: string;
  line?: number | null;
}
export interface OpApplied {
  kind: "op";
  node: string | null;
  tensors: string[];
  line?: number | null;
}
export interface InplaceChanged {
  kind: "inplace";
  tensor: string;
  node: string | null;
  version: number;
  value: number | ("NaN" | "Infinity" | "-Infinity") | ArrayValue;
  line?: number | null;
  aliases?: Alias[];
}
/**
 * Another tensor whose values live in the same memory, as the in-place change left it: its
 * `value`, or `same_as`, the event's tensor or an earlier alias that shows the same elements in
 * the same order (whose value it therefore has).
 */
export interface Alias {
  tensor: string;
  version: number;
  value?: number | ("NaN" | "Infinity" | "-Infinity") | ArrayValue | null;
  same_as?: string | null;
}
export interface Printed {
  kind: "print";
  text: string;
  line?: number | null;
}
export interface GradModeChanged {
  kind: "grad_mode";
  enabled: boolean;
  line?: number | null;
}
export interface BackwardBegan {
  kind: "backward_begin";
  pass: number;
  api: "backward" | "grad";
  roots: Seed[];
  retain_graph: boolean;
  create_graph: boolean;
  line?: number | null;
}
export interface Seed {
  tensor: string;
  node: string | null;
  grad: number | ("NaN" | "Infinity" | "-Infinity") | ArrayValue;
}
export interface NodeRan {
  kind: "node_run";
  pass: number;
  node: string;
  received: Contribution[];
  grad_outputs: (number | ("NaN" | "Infinity" | "-Infinity") | ArrayValue | null)[];
  sent: Sent[];
}
export interface Contribution {
  edge: string | null;
  grad: number | ("NaN" | "Infinity" | "-Infinity") | ArrayValue;
}
export interface Sent {
  edge: string;
  grad: number | ("NaN" | "Infinity" | "-Infinity") | ArrayValue | null;
  total?: number | ("NaN" | "Infinity" | "-Infinity") | ArrayValue | null;
}
export interface GradAccumulated {
  kind: "accumulate";
  pass: number;
  node: string;
  tensor: string;
  before: number | ("NaN" | "Infinity" | "-Infinity") | ArrayValue | null;
  contribution: number | ("NaN" | "Infinity" | "-Infinity") | ArrayValue;
  after: number | ("NaN" | "Infinity" | "-Infinity") | ArrayValue;
}
/**
 * The snippet (or an optimizer) set, zeroed or cleared a tensor's `.grad` outside backward.
 */
export interface GradSet {
  kind: "grad_set";
  tensor: string;
  grad: number | ("NaN" | "Infinity" | "-Infinity") | ArrayValue | null;
  line?: number | null;
}
export interface GradRetained {
  kind: "retain_grad";
  pass: number;
  tensor: string;
  grad: number | ("NaN" | "Infinity" | "-Infinity") | ArrayValue;
}
export interface GradCaptured {
  kind: "capture";
  pass: number;
  tensor: string;
  grad: number | ("NaN" | "Infinity" | "-Infinity") | ArrayValue | null;
}
export interface HookFired {
  kind: "hook";
  pass: number;
  hook: "tensor" | "prehook" | "posthook" | "post_accumulate";
  target: string;
  name: string;
  result?: number | ("NaN" | "Infinity" | "-Infinity") | ArrayValue | null;
}
export interface BackwardEnded {
  kind: "backward_end";
  pass: number;
  freed: string[];
}
export interface ErrorRaised {
  kind: "error";
  error: ErrorInfo;
}
/**
 * A lesson caption: the text of a `# step: ...` comment and the source line it belongs to.
 */
export interface Caption {
  line: number;
  text: string;
}
