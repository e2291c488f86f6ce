/** The data block of a standalone lesson file: the trace and its options, safe inside a script tag. */

import type { Pane } from "./embed";

export interface OfflineData {
  trace: unknown;
  title?: string | null;
  step?: number | null;
  panes?: Pane[] | null;
}

/** The element the template carries; the exporter (here or in server/export.py) fills it in. */
export const DATA_TAG_OPEN = '<script type="application/json" id="gradstep-data">';
export const DATA_TAG = `${DATA_TAG_OPEN}__GRADSTEP_DATA__</script>`;

/** JSON that cannot end the script element or start a comment inside it. */
export function scriptSafeJson(data: unknown): string {
  return JSON.stringify(data)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** The template with the data in place; throws if the template has no data slot. */
export function fillTemplate(template: string, data: OfflineData): string {
  const at = template.indexOf(DATA_TAG);
  if (at < 0) throw new Error("this is not a gradstep offline template (no data slot)");
  const filled = `${DATA_TAG_OPEN}${scriptSafeJson(data)}</script>`;
  return template.slice(0, at) + filled + template.slice(at + DATA_TAG.length);
}
