import type { OperationKind } from './operations.js';

/** Request units charged by operation kind, plus `total` (see `requestCharge.ts`). */
export type RequestUnitSnapshot = Partial<Record<OperationKind, number>> & { total: number };

/** Request counts by operation kind, plus `total`, and the request units they charged. */
export type CounterSnapshot = Partial<Record<OperationKind, number>> & { total: number; requestUnits: RequestUnitSnapshot };

/** Counts handled requests, and the request units they charged, per operation kind so tests and benchmarks can measure them. */
export class RequestCounters {
  private counts = new Map<OperationKind, number>();
  private total = 0;
  /** In hundredths of a request unit, the precision the service reports, so sums never drift. */
  private charged = new Map<OperationKind, number>();
  private chargedTotal = 0;

  /** Records one request. */
  increment(kind: OperationKind): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    this.total += 1;
  }

  /** Adds the request units one request of `kind` charged. */
  charge(kind: OperationKind, requestUnits: number): void {
    const hundredths = Math.round(requestUnits * 100);
    if (hundredths === 0) return;
    this.charged.set(kind, (this.charged.get(kind) ?? 0) + hundredths);
    this.chargedTotal += hundredths;
  }

  /** A copy of the current counts and charges. */
  snapshot(): CounterSnapshot {
    const requestUnits: RequestUnitSnapshot = { total: this.chargedTotal / 100 };
    for (const [kind, n] of this.charged) requestUnits[kind] = n / 100;
    const out: CounterSnapshot = { total: this.total, requestUnits };
    for (const [kind, n] of this.counts) out[kind] = n;
    return out;
  }

  /** Sets every count and charge back to zero. */
  reset(): void {
    this.counts = new Map();
    this.total = 0;
    this.charged = new Map();
    this.chargedTotal = 0;
  }
}
