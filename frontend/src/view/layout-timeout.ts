/** The error a layout gives up with when Graphviz takes too long (shared by both layout engines). */

export class LayoutTimeout extends Error {
  constructor(ms: number) {
    super(`the graph layout took longer than ${ms / 1000} s`);
    this.name = "LayoutTimeout";
  }
}

/** What the app needs from a layout engine: DOT in, SVG text out. */
export interface GraphLayout {
  render(dot: string): Promise<string>;
}
