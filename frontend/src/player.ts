/** Play/pause/step/seek state machine over frame indices, with an injected clock. */

export interface Clock {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realClock: Clock = {
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (h) => globalThis.clearTimeout(h as ReturnType<typeof setTimeout>),
};

export interface PlayerState {
  step: number;
  total: number;
  playing: boolean;
  /** Steps per second. */
  speed: number;
}

export const SPEEDS = [0.5, 1, 2, 4] as const;

export class Player {
  private state: PlayerState;
  private timer: unknown = null;
  private readonly listeners = new Set<(s: PlayerState) => void>();

  constructor(
    private readonly clock: Clock = realClock,
    total = 0,
    speed = 1,
  ) {
    this.state = { step: 0, total, playing: false, speed };
  }

  get current(): PlayerState {
    return { ...this.state };
  }

  subscribe(fn: (s: PlayerState) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** A new trace: new length, stopped, at `start`. */
  load(total: number, start = 0): void {
    this.stopTimer();
    this.state = { ...this.state, total, playing: false, step: this.clamp(start, total) };
    this.emit();
  }

  seek(step: number): void {
    const next = this.clamp(step, this.state.total);
    if (next === this.state.step) return;
    this.state = { ...this.state, step: next };
    this.emit();
  }

  next(): void {
    this.seek(this.state.step + 1);
  }

  prev(): void {
    this.pause();
    this.seek(this.state.step - 1);
  }

  first(): void {
    this.pause();
    this.seek(0);
  }

  last(): void {
    this.pause();
    this.seek(this.state.total - 1);
  }

  get atEnd(): boolean {
    return this.state.step >= this.state.total - 1;
  }

  play(): void {
    if (this.state.playing || this.state.total <= 1) return;
    if (this.atEnd) this.state = { ...this.state, step: 0 };
    this.state = { ...this.state, playing: true };
    this.emit();
    this.schedule();
  }

  pause(): void {
    if (!this.state.playing) return;
    this.stopTimer();
    this.state = { ...this.state, playing: false };
    this.emit();
  }

  toggle(): void {
    if (this.state.playing) this.pause();
    else this.play();
  }

  setSpeed(speed: number): void {
    if (!(speed > 0)) return;
    this.state = { ...this.state, speed };
    if (this.state.playing) {
      this.stopTimer();
      this.schedule();
    }
    this.emit();
  }

  private schedule(): void {
    this.timer = this.clock.setTimeout(() => this.tick(), 1000 / this.state.speed);
  }

  private tick(): void {
    this.timer = null;
    if (!this.state.playing) return;
    this.seek(this.state.step + 1);
    if (this.atEnd) {
      this.state = { ...this.state, playing: false };
      this.emit();
    } else {
      this.schedule();
    }
  }

  private stopTimer(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private clamp(step: number, total: number): number {
    if (total <= 0) return 0;
    return Math.min(Math.max(0, Math.round(step)), total - 1);
  }

  private emit(): void {
    const s = this.current;
    for (const fn of this.listeners) fn(s);
  }
}
