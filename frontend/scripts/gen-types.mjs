// Writes src/trace/generated.ts from src/trace/schema.json (the JSON Schema of server/schema.py).
// The vitest suite regenerates in memory with the same function and fails when the file is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { compile } from "json-schema-to-typescript";

export const SCHEMA_PATH = fileURLToPath(new URL("../src/trace/schema.json", import.meta.url));
export const GENERATED_PATH = fileURLToPath(new URL("../src/trace/generated.ts", import.meta.url));

const BANNER = `/**
 * The trace contract, generated from src/trace/schema.json by \`npm run gen:types\`. Do not edit:
 * regenerate after the server's schema changes (test/schema.test.ts fails while this file is stale).
 */`;

/** Pydantic titles every property ("Names", "Line"); those would become one alias type each. */
function dropPropertyTitles(node) {
  if (Array.isArray(node)) return node.map(dropPropertyTitles);
  if (typeof node !== "object" || node === null) return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "properties") {
      out[k] = Object.fromEntries(
        Object.entries(v).map(([name, prop]) => {
          const { title: _title, ...rest } = prop;
          return [name, dropPropertyTitles(rest)];
        }),
      );
    } else out[k] = dropPropertyTitles(v);
  }
  return out;
}

/** TypeScript source for one JSON Schema. */
export async function generate(schema) {
  return compile(dropPropertyTitles(schema), "Trace", {
    bannerComment: BANNER,
    additionalProperties: false,
    unknownAny: true,
    strictIndexSignatures: true,
    format: true,
    style: { printWidth: 110, singleQuote: false, trailingComma: "all" },
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const schema = JSON.parse(readFileSync(SCHEMA_PATH, "utf8"));
  writeFileSync(GENERATED_PATH, await generate(schema));
  console.log(`wrote ${GENERATED_PATH}`);
}
