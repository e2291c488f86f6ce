/** Short human text for numbers and tensor values (labels, narration, tables). */

import type { ArrayValue, JsonNumber } from "./trace/types";

/** A number for scales, colours and means; a complex element gives its magnitude. */
export function toNumber(v: JsonNumber | null | undefined): number {
  if (v === null || v === undefined) return NaN;
  if (typeof v === "number") return v;
  if (Array.isArray(v)) return Math.hypot(toNumber(v[0]), toNumber(v[1]));
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v === "Infinity") return Infinity;
  if (v === "-Infinity") return -Infinity;
  return NaN;
}

/** Integer dtypes print their elements as integers, as PyTorch does: int64 [1, 0], not [1.0, 0.0]. */
export function isIntegerDtype(dtype: string | undefined): boolean {
  return dtype !== undefined && /^u?int/.test(dtype);
}

/**
 * 2 -> "2.0", 3.58385316 -> "3.5839", 1e-7 -> "1.0000e-07", [3, 4] -> "3.0+4.0j", like a shortened
 * PyTorch print; with `integer` (an element of an integer tensor, a dim, a size) whole numbers print as they are.
 */
export function formatNumber(v: JsonNumber | null | undefined, digits = 4, integer = false): string {
  if (typeof v === "boolean") return v ? "True" : "False";
  if (Array.isArray(v)) {
    // a complex element, as PyTorch writes one: 3.0+4.0j, 1.0-0.5j
    const im = formatNumber(v[1], digits);
    return `${formatNumber(v[0], digits)}${im.startsWith("-") ? im : `+${im}`}j`;
  }
  const x = toNumber(v);
  if (integer && Number.isInteger(x)) return `${x}`;
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (Object.is(x, -0)) return "-0.0";
  if (Number.isInteger(x) && Math.abs(x) < 1e9) return `${x}.0`;
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-4 || a >= 1e9)) return x.toExponential(digits);
  const fixed = x.toFixed(digits).replace(/0+$/, "");
  return fixed.endsWith(".") ? `${fixed}0` : fixed;
}

export function numel(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

export function shapeText(shape: readonly number[]): string {
  return `[${shape.join(", ")}]`;
}

/** Is this value a single number (shape [] or one element)? */
export function isScalar(v: ArrayValue): boolean {
  return numel(v.shape) === 1 && v.data.length >= 1;
}

/**
 * A compact one-line rendering: scalars as a number, up to `maxItems` elements as a list,
 * anything larger as shape plus mean.
 */
export function formatValue(v: ArrayValue | null | undefined, maxItems = 4): string {
  if (!v) return "None";
  const integer = isIntegerDtype(v.dtype);
  const element = (d: JsonNumber | undefined) => formatNumber(d, 4, integer);
  if (isScalar(v)) return element(v.data[0]);
  const n = numel(v.shape);
  if (n <= maxItems && !v.truncated && v.data.length === n) {
    if (v.shape.length <= 1) return `[${v.data.map(element).join(", ")}]`;
    const rows = v.shape[0] ?? 1;
    const cols = n / Math.max(rows, 1);
    const out: string[] = [];
    for (let r = 0; r < rows; r++) {
      out.push(`[${v.data.slice(r * cols, (r + 1) * cols).map(element).join(", ")}]`);
    }
    return `[${out.join(", ")}]`;
  }
  return `${v.shape.join("×")} mean ${formatNumber(v.mean ?? meanOf(v), 3)}`;
}

function meanOf(v: ArrayValue): number {
  if (v.data.length === 0) return NaN;
  let s = 0;
  for (const d of v.data) s += toNumber(d);
  return s / v.data.length;
}

/** "2.0 + 2.0 - 0.4161 = 3.5839"; terms may be values or ready-made text (e.g. "0" for no .grad yet). */
export function formatSum(terms: readonly (ArrayValue | string | null)[], total: ArrayValue | null): string {
  const parts: string[] = [];
  terms.forEach((t, i) => {
    const text = typeof t === "string" ? t : formatValue(t);
    if (i === 0) parts.push(text);
    else if (/^-\d/.test(text)) parts.push(`- ${text.slice(1)}`);
    else parts.push(`+ ${text}`);
  });
  return `${parts.join(" ")} = ${formatValue(total)}`;
}

/** Elementwise sum of several values of one shape (used when the trace leaves a total out). */
export function addValues(values: readonly ArrayValue[]): ArrayValue | null {
  const first = values[0];
  if (!first) return null;
  if (first.data.some((d) => Array.isArray(d))) {
    // complex elements: real and imaginary parts summed apart
    const part = (d: JsonNumber | undefined, k: 0 | 1): number =>
      Array.isArray(d) ? toNumber(d[k]) : k === 0 ? toNumber(d) : 0;
    const sum = (i: number, k: 0 | 1) => values.reduce((s, v) => s + part(v.data[i], k), 0);
    const pairs = first.data.map((_, i): JsonNumber => [sum(i, 0), sum(i, 1)]);
    return { shape: first.shape.slice(), dtype: first.dtype, data: pairs };
  }
  const data = first.data.map((_, i) => values.reduce((s, v) => s + toNumber(v.data[i]), 0));
  return { shape: first.shape.slice(), dtype: first.dtype, data };
}
