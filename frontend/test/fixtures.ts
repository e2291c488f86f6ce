/** Loads traces for tests: the tracer's golden traces when present, plus small hand-made ones. */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { validateTrace } from "../src/trace/validate";
import type { Trace } from "../src/trace/types";

const HERE = new URL(".", import.meta.url).pathname;
export const GOLDEN_DIR = join(HERE, "../../tests/fixtures/traces");

export function handMade(name: string): Trace {
  return validateTrace(JSON.parse(readFileSync(join(HERE, "fixtures", `${name}.json`), "utf8")));
}

/** [file name, raw JSON] of every golden trace the tracer has produced so far. */
export function goldenTraces(): [string, unknown][] {
  if (!existsSync(GOLDEN_DIR)) return [];
  return readdirSync(GOLDEN_DIR)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => [f, JSON.parse(readFileSync(join(GOLDEN_DIR, f), "utf8"))]);
}
