/** Client of the layout worker: DOT in, SVG text out (falls back to the main thread without workers). */

interface Reply {
  id: number;
  svg?: string;
  error?: string;
}

export class Layout {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (s: string) => void; reject: (e: Error) => void }>();

  constructor() {
    try {
      this.worker = new Worker(new URL("../layout.worker.ts", import.meta.url), { type: "module" });
      this.worker.onmessage = (e: MessageEvent<Reply>) => this.reply(e.data);
      this.worker.onerror = () => {
        this.worker = null;
        for (const [, p] of this.pending) p.reject(new Error("layout worker failed"));
        this.pending.clear();
      };
    } catch {
      this.worker = null;
    }
  }

  private reply(r: Reply): void {
    const p = this.pending.get(r.id);
    if (!p) return;
    this.pending.delete(r.id);
    if (r.svg !== undefined) p.resolve(r.svg);
    else p.reject(new Error(r.error ?? "layout failed"));
  }

  async render(dot: string): Promise<string> {
    if (this.worker) {
      const id = this.nextId++;
      const worker = this.worker;
      return new Promise((resolve, reject) => {
        this.pending.set(id, { resolve, reject });
        worker.postMessage({ id, dot });
      }).then(
        (s) => s as string,
        () => this.renderHere(dot),
      );
    }
    return this.renderHere(dot);
  }

  private async renderHere(dot: string): Promise<string> {
    const { instance } = await import("@viz-js/viz");
    const viz = await instance();
    return viz.renderString(dot, { format: "svg" });
  }
}
