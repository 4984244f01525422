import type { OperationKind } from './operations.js';

/** Request counts by operation kind, plus `total`. */
export type CounterSnapshot = Partial<Record<OperationKind, number>> & { total: number };

/** Counts handled requests per operation kind so tests and benchmarks can measure round trips. */
export class RequestCounters {
  private counts = new Map<OperationKind, number>();
  private total = 0;

  /** Records one request. */
  increment(kind: OperationKind): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    this.total += 1;
  }

  /** A copy of the current counts. */
  snapshot(): CounterSnapshot {
    const out: CounterSnapshot = { total: this.total };
    for (const [kind, n] of this.counts) out[kind] = n;
    return out;
  }

  /** Sets every count back to zero. */
  reset(): void {
    this.counts = new Map();
    this.total = 0;
  }
}
