export const SCHEMA_PATH: string;
export const GENERATED_PATH: string;
export function generate(schema: unknown): Promise<string>;
