/** Client of the layout worker: DOT in, SVG text out, with a time limit so a huge graph cannot hang the app. */

interface Reply {
  id: number;
  svg?: string;
  error?: string;
}

import { LayoutTimeout } from "./layout-timeout";

export { LayoutTimeout };

interface Pending {
  resolve: (s: string) => void;
  reject: (e: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

export class Layout {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly timeoutMs = 10000) {
    this.worker = this.spawn();
  }

  private spawn(): Worker | null {
    try {
      const worker = new Worker(new URL("../layout.worker.ts", import.meta.url), { type: "module" });
      worker.onmessage = (e: MessageEvent<Reply>) => this.reply(e.data);
      worker.onerror = () => {
        this.worker = null;
        this.failAll(new Error("layout worker failed"));
      };
      return worker;
    } catch {
      return null;
    }
  }

  private failAll(error: Error): void {
    for (const [, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(error);
    }
    this.pending.clear();
  }

  private reply(r: Reply): void {
    const p = this.pending.get(r.id);
    if (!p) return;
    this.pending.delete(r.id);
    clearTimeout(p.timer);
    if (r.svg !== undefined) p.resolve(r.svg);
    else p.reject(new Error(r.error ?? "layout failed"));
  }

  async render(dot: string): Promise<string> {
    if (!this.worker) return this.renderHere(dot);
    const id = this.nextId++;
    const worker = this.worker;
    try {
      return await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => {
          // Graphviz cannot be interrupted: stop the worker, start a fresh one for the next layout.
          worker.terminate();
          this.worker = this.spawn();
          this.failAll(new LayoutTimeout(this.timeoutMs));
        }, this.timeoutMs);
        this.pending.set(id, { resolve, reject, timer });
        worker.postMessage({ id, dot });
      });
    } catch (e) {
      if (e instanceof LayoutTimeout) throw e;
      return this.renderHere(dot);
    }
  }

  private async renderHere(dot: string): Promise<string> {
    const { instance } = await import("@viz-js/viz");
    const viz = await instance();
    return viz.renderString(dot, { format: "svg" });
  }
}
