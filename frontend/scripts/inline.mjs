// Folds the offline build (dist/offline) into ONE HTML file: ../server/static/offline.html.
// Fails when anything would still be loaded from elsewhere, or when the file names an unknown host.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(here, "../dist/offline");
const out = resolve(here, "../../server/static/offline.html");

// Namespace and DTD identifiers that SVG and XML code names but never fetches.
export const ALLOWED_URLS = [
  "http://www.w3.org/2000/svg",
  "http://www.w3.org/1999/xlink",
  "http://www.w3.org/1999/xhtml",
  "http://www.w3.org/2000/xmlns/",
  "http://www.w3.org/XML/1998/namespace",
  "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd",
];

let html = readFileSync(join(dist, "index.html"), "utf8");

html = html.replace(/<script type="module" crossorigin src="\.\/([^"]+)"><\/script>/g, (_, file) => {
  const js = readFileSync(join(dist, file), "utf8").replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
  return `<script type="module">${js}</script>`;
});
html = html.replace(/<link rel="stylesheet" crossorigin href="\.\/([^"]+)">/g, (_, file) => {
  const css = readFileSync(join(dist, file), "utf8").replace(/<\/(style)/gi, "<\\/$1");
  return `<style>${css}</style>`;
});

const leftovers = html.match(/<(script|link)\b[^>]*\b(src|href)="(?!data:)[^"]*"/g);
if (leftovers) throw new Error(`offline build still loads files: ${leftovers.join(", ")}`);
for (const m of html.matchAll(/https?:\/\/[^\s"'`)<>\\]*/g)) {
  if (!ALLOWED_URLS.some((u) => m[0] === u || m[0].startsWith(u))) {
    throw new Error(`offline build names an external address: ${m[0]}`);
  }
}
if (!html.includes('<script type="application/json" id="gradstep-data">__GRADSTEP_DATA__</script>')) {
  throw new Error("offline build lost its data slot");
}
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, html);
console.log(`wrote ${out} (${(html.length / 1024).toFixed(0)} KiB)`);
