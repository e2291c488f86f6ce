import { readFileSync } from "node:fs";
import Ajv from "ajv";
import { describe, expect, it } from "vitest";
import { GENERATED_PATH, SCHEMA_PATH, generate } from "../scripts/gen-types.mjs";
import { EVENT_KINDS } from "../src/trace/validate";
import { goldenTraces } from "./fixtures";

const schema = JSON.parse(readFileSync(SCHEMA_PATH, "utf8")) as {
  properties: { events: { items: { discriminator: { mapping: Record<string, string> } } } };
};

/** Event kinds as the schema defines them: the discriminator of the events list. */
function schemaKinds(): string[] {
  return Object.keys(schema.properties.events.items.discriminator.mapping).sort();
}

describe("the trace schema and the TypeScript types", () => {
  it("generated.ts is what json-schema-to-typescript makes of schema.json (else run npm run gen:types)", async () => {
    const fresh = await generate(schema);
    expect(readFileSync(GENERATED_PATH, "utf8")).toBe(fresh);
  });

  it("the app knows exactly the event kinds the schema defines", () => {
    expect(schemaKinds().length).toBeGreaterThan(10);
    expect([...EVENT_KINDS].sort()).toEqual(schemaKinds());
  });
});

describe("the golden traces and the schema", () => {
  const golden = goldenTraces();
  const ajv = new Ajv({ strict: false, allErrors: true });
  const validate = ajv.compile(schema);

  it("there are golden traces to check", () => {
    expect(golden.length).toBeGreaterThan(0);
  });

  it.each(golden)("%s matches schema.json", (_file, raw) => {
    const ok = validate(raw);
    expect(ajv.errorsText(validate.errors), "regenerate src/trace/schema.json from server/schema.py").toBe("No errors");
    expect(ok).toBe(true);
  });

  it("every event kind in the goldens is in the schema", () => {
    const kinds = new Set(schemaKinds());
    for (const [file, raw] of golden) {
      for (const ev of (raw as { events: { kind: string }[] }).events) expect(kinds.has(ev.kind), `${file}: ${ev.kind}`).toBe(true);
    }
  });
});
