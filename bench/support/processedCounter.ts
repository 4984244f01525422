/** Counts the host's "message processed" lines by function and outcome, and wakes whoever waits for a count. */
export class ProcessedCounter {
  private readonly counts = new Map<string, number>();
  private waiters: { check: () => boolean; resolve: () => void }[] = [];

  /** Takes one parsed log record of the host. */
  record(line: Record<string, unknown>): void {
    if (line.msg !== 'message processed' || typeof line.function !== 'string') return;
    const key = `${line.function}:${String(line.outcome)}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    this.waiters = this.waiters.filter((w) => (w.check() ? (w.resolve(), false) : true));
  }

  /** Messages of `fn` settled with `outcome`, or with any outcome when it is omitted. */
  count(fn: string, outcome?: string): number {
    let n = 0;
    for (const [key, value] of this.counts) if (key === `${fn}:${outcome}` || (outcome === undefined && key.startsWith(`${fn}:`))) n += value;
    return n;
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
    await Promise.race([
      new Promise<void>((resolve) => this.waiters.push({ check, resolve })),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${fn}: ${this.count(fn, 'completed')}/${n} completed after ${timeoutMs} ms (${JSON.stringify(this.snapshot())})`)), timeoutMs);
      }),
    ]).finally(() => clearTimeout(timer));
  }
}
