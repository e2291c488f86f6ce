/**
 * Graphviz on the main thread, for the single-file offline build: no worker file to load, and the
 * WebAssembly travels inside the @viz-js/viz bundle, so nothing is fetched.
 */

import { instance, type Viz } from "@viz-js/viz";
import type { GraphLayout } from "./layout-timeout";

export class InlineLayout implements GraphLayout {
  private viz: Promise<Viz> | null = null;

  async render(dot: string): Promise<string> {
    this.viz ??= instance();
    const viz = await this.viz;
    const result = viz.render(dot, { format: "svg" });
    if (result.status === "success") return result.output;
    throw new Error(result.errors.map((e) => e.message).join("; ") || "Graphviz failed");
  }
}
