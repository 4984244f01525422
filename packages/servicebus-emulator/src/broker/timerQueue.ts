/**
 * One timer for the whole broker: a binary min-heap of due times. Entries are never cancelled; each callback
 * re-checks the state it was scheduled for (lock still held with the same expiry, message still queued),
 * which keeps renewals and settlements O(1).
 */
export class TimerQueue {
  private heap: { at: number; run: () => void }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private armedFor = Infinity;
  private closed = false;

  /** Runs `run` at (or shortly after) epoch-ms `at`. Infinite times are ignored. */
  at(at: number, run: () => void): void {
    if (!Number.isFinite(at) || this.closed) return;
    const h = this.heap;
    h.push({ at, run });
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if ((h[p] as { at: number }).at <= at) break;
      [h[i], h[p]] = [h[p] as (typeof h)[number], h[i] as (typeof h)[number]];
      i = p;
    }
    if (at < this.armedFor) this.arm();
  }

  /** Number of pending entries (for stats and tests). */
  get size(): number {
    return this.heap.length;
  }

  /** Stops firing; pending callbacks are dropped. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.heap = [];
  }

  private pop(): { at: number; run: () => void } | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && (h[l] as { at: number }).at < (h[m] as { at: number }).at) m = l;
        if (r < h.length && (h[r] as { at: number }).at < (h[m] as { at: number }).at) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m] as (typeof h)[number], h[i] as (typeof h)[number]];
        i = m;
      }
    }
    return top;
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    const next = this.heap[0];
    if (!next) {
      this.armedFor = Infinity;
      this.timer = undefined;
      return;
    }
    this.armedFor = next.at;
    // setTimeout overflows past ~24.8 days; re-arming at the cap is harmless.
    const delay = Math.min(Math.max(0, next.at - Date.now()), 2 ** 31 - 1);
    this.timer = setTimeout(() => this.fire(), delay);
    this.timer.unref();
  }

  private fire(): void {
    const now = Date.now();
    while (this.heap.length > 0 && (this.heap[0] as { at: number }).at <= now) {
      const entry = this.pop();
      try {
        entry?.run();
      } catch {
        // A failing callback must not stop the clock for every other entity.
      }
    }
    this.armedFor = Infinity;
    this.arm();
  }
}
