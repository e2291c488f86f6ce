import { describe, expect, it } from "vitest";
import { Player, type Clock } from "../src/player";

class FakeClock implements Clock {
  private queue: { at: number; fn: () => void; id: number }[] = [];
  private now = 0;
  private ids = 0;
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.ids;
    this.queue.push({ at: this.now + ms, fn, id });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.queue = this.queue.filter((q) => q.id !== handle);
  }
  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      this.queue.sort((a, b) => a.at - b.at);
      const next = this.queue[0];
      if (!next || next.at > end) break;
      this.queue.shift();
      this.now = next.at;
      next.fn();
    }
    this.now = end;
  }
  get pending(): number {
    return this.queue.length;
  }
}

describe("player", () => {
  it("steps and clamps at both ends", () => {
    const p = new Player(new FakeClock(), 3);
    p.prev();
    expect(p.current.step).toBe(0);
    p.next();
    p.next();
    p.next();
    expect(p.current.step).toBe(2);
    p.first();
    expect(p.current.step).toBe(0);
    p.last();
    expect(p.current.step).toBe(2);
  });

  it("plays one step per second at speed 1 and stops at the end", () => {
    const clock = new FakeClock();
    const p = new Player(clock, 4);
    p.play();
    expect(p.current.playing).toBe(true);
    clock.advance(1000);
    expect(p.current.step).toBe(1);
    clock.advance(5000);
    expect(p.current.step).toBe(3);
    expect(p.current.playing).toBe(false);
    expect(clock.pending).toBe(0);
  });

  it("play at the end starts over; pause stops the clock", () => {
    const clock = new FakeClock();
    const p = new Player(clock, 5);
    p.last();
    p.play();
    expect(p.current.step).toBe(0);
    clock.advance(2000);
    expect(p.current.step).toBe(2);
    p.pause();
    clock.advance(5000);
    expect(p.current.step).toBe(2);
    expect(clock.pending).toBe(0);
  });

  it("speed changes the tick rate", () => {
    const clock = new FakeClock();
    const p = new Player(clock, 10);
    p.setSpeed(4);
    p.play();
    clock.advance(1000);
    expect(p.current.step).toBe(4);
  });

  it("notifies subscribers and loads new traces at a start step", () => {
    const p = new Player(new FakeClock());
    const seen: number[] = [];
    p.subscribe((s) => seen.push(s.step));
    p.load(12, 4);
    p.next();
    expect(seen).toEqual([4, 5]);
    p.load(2, 9);
    expect(p.current.step).toBe(1);
  });
});
