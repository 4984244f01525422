import type { OperationKind } from './operations.js';

/** Request units charged by operation kind, plus `total` (see `requestCharge.ts`). */
type RequestUnitSnapshot = Partial<Record<OperationKind, number>> & { total: number };

/** Bytes of items written (as stored) by operation kind, plus `total`. */
type BytesWrittenSnapshot = Partial<Record<OperationKind, number>> & { total: number };

/** Request counts by operation kind, plus `total`, the request units they charged and the bytes they wrote. */
export type CounterSnapshot = Partial<Record<OperationKind, number>> & {
  total: number;
  requestUnits: RequestUnitSnapshot;
  bytesWritten: BytesWrittenSnapshot;
};

/**
 * Counts handled requests, the request units they charged and the bytes they wrote, per operation kind, so tests and
 * benchmarks can measure them.
 */
export class RequestCounters {
  private counts = new Map<OperationKind, number>();
  private total = 0;
  /** In hundredths of a request unit, the precision the service reports, so sums never drift. */
  private charged = new Map<OperationKind, number>();
  private chargedTotal = 0;
  private written = new Map<OperationKind, number>();
  private writtenTotal = 0;

  /** Records one request. */
  increment(kind: OperationKind): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    this.total += 1;
  }

  /** Adds the request units one request of `kind` charged and the bytes of the items it wrote. */
  charge(kind: OperationKind, requestUnits: number, bytesWritten = 0): void {
    const hundredths = Math.round(requestUnits * 100);
    if (hundredths !== 0) {
      this.charged.set(kind, (this.charged.get(kind) ?? 0) + hundredths);
      this.chargedTotal += hundredths;
    }
    if (bytesWritten !== 0) {
      this.written.set(kind, (this.written.get(kind) ?? 0) + bytesWritten);
      this.writtenTotal += bytesWritten;
    }
  }

  /** A copy of the current counts and charges. */
  snapshot(): CounterSnapshot {
    const requestUnits: RequestUnitSnapshot = { total: this.chargedTotal / 100 };
    for (const [kind, n] of this.charged) requestUnits[kind] = n / 100;
    const bytesWritten: BytesWrittenSnapshot = { total: this.writtenTotal };
    for (const [kind, n] of this.written) bytesWritten[kind] = n;
    const out: CounterSnapshot = { total: this.total, requestUnits, bytesWritten };
    for (const [kind, n] of this.counts) out[kind] = n;
    return out;
  }

  /** Sets every count and charge back to zero. */
  reset(): void {
    this.counts = new Map();
    this.total = 0;
    this.charged = new Map();
    this.chargedTotal = 0;
    this.written = new Map();
    this.writtenTotal = 0;
  }
}
