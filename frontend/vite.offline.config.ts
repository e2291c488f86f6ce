/**
 * The single-file offline build: the same app with its trace inside the page (src/offline.ts), Graphviz
 * on the main thread (no worker file), everything in one chunk. scripts/inline.mjs then folds the JS
 * and CSS into the HTML and writes ../server/static/offline.html, the template `gradstep export` fills.
 */

import { defineConfig, type Plugin } from "vite";

const DATA_SLOT = '<script type="application/json" id="gradstep-data">__GRADSTEP_DATA__</script>';

function offlineEntry(): Plugin {
  return {
    name: "gradstep-offline-entry",
    transformIndexHtml: {
      order: "pre",
      handler(html) {
        return html
          .replace("/src/main.ts", "/src/offline.ts")
          .replace('<meta charset="utf-8" />', `<meta charset="utf-8" />\n    ${DATA_SLOT}`);
      },
    },
  };
}

export default defineConfig({
  base: "./",
  plugins: [offlineEntry()],
  esbuild: { legalComments: "none" },
  build: {
    outDir: "dist/offline",
    emptyOutDir: true,
    target: "es2022",
    chunkSizeWarningLimit: 4000,
    assetsInlineLimit: Number.MAX_SAFE_INTEGER,
    cssCodeSplit: false,
    modulePreload: false,
    rollupOptions: { output: { inlineDynamicImports: true } },
  },
});
