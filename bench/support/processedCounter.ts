/**
 * Reads the host's log: counts "message processed" lines by function and outcome and "session accepted" lines by
 * function, keeps when each entry was first completed, and wakes whoever waits for a count.
 */
export class ProcessedCounter {
  private readonly counts = new Map<string, number>();
  private readonly accepts = new Map<string, number>();
  private readonly completedAtMs = new Map<string, number>();
  private waiters: { check: () => boolean; resolve: () => void }[] = [];

  /** Takes one parsed log record of the host. */
  record(line: Record<string, unknown>): void {
    if (typeof line.function !== 'string') return;
    if (line.msg === 'session accepted') {
      this.accepts.set(line.function, (this.accepts.get(line.function) ?? 0) + 1);
      return;
    }
    if (line.msg !== 'message processed') return;
    const key = `${line.function}:${String(line.outcome)}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    if (line.outcome === 'completed' && typeof line.entryId === 'string' && !this.completedAtMs.has(line.entryId)) {
      // pino's `time` is Date.now() when the line was logged.
      this.completedAtMs.set(line.entryId, typeof line.time === 'number' ? line.time : Date.now());
    }
    this.waiters = this.waiters.filter((w) => (w.check() ? (w.resolve(), false) : true));
  }

  /** Messages of `fn` settled with `outcome`, or with any outcome when it is omitted. */
  count(fn: string, outcome?: string): number {
    let n = 0;
    for (const [key, value] of this.counts)
      if (key === `${fn}:${outcome}` || (outcome === undefined && key.startsWith(`${fn}:`))) n += value;
    return n;
  }

  /** "session accepted" lines of `fn`'s session trigger. */
  sessionAccepts(fn: string): number {
    return this.accepts.get(fn) ?? 0;
  }

  /** When the host logged the first completed "message processed" line of this entry (epoch ms). */
  completedAt(entryId: string): number | undefined {
    return this.completedAtMs.get(entryId);
  }

  /** Every count, keyed `<function>:<outcome>`. */
  snapshot(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }

  /** Resolves once `fn` has completed `n` messages; rejects after `timeoutMs` with what was seen. */
  async completed(fn: string, n: number, timeoutMs: number): Promise<void> {
    const check = (): boolean => this.count(fn, 'completed') >= n;
    if (check()) return;
    let timer: NodeJS.Timeout | undefined;
    const waiter = { check, resolve: () => undefined as void };
    await Promise.race([
      new Promise<void>((resolve) => {
        waiter.resolve = resolve;
        this.waiters.push(waiter);
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          reject(
            new Error(
              `${fn}: ${this.count(fn, 'completed')}/${n} completed after ${timeoutMs} ms (${JSON.stringify(this.snapshot())})`,
            ),
          );
        }, timeoutMs);
      }),
    ]).finally(() => clearTimeout(timer));
  }
}
