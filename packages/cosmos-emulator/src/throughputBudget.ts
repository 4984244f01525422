/**
 * The throughput budget (`--throughput <RU/s>`): each container serves at most that many request units a second, and
 * a request that arrives when its container's budget is spent is refused as Azure Cosmos DB refuses it — 429 with
 * substatus 3200 and `x-ms-retry-after-ms` — without being run or charged. Metered as a token bucket per container:
 * it refills at the budget's rate and holds at most one second's worth, so a quiet container may take a one-second
 * burst, and over any longer stretch a container is charged no more than the budget allows. A request is admitted
 * while the bucket is above zero and its charge, known only once it has run, is taken afterwards (it may overdraw the
 * bucket; the requests after it wait for the refill), as the service admits a request before it knows its cost.
 */

/** Milliseconds since some fixed point; `Date.now` by default (a test passes its own clock). */
export type BudgetClock = () => number;

interface Bucket {
  /** Request units left; may be below zero after an expensive request. */
  units: number;
  /** When `units` was last brought up to date. */
  at: number;
}

/** Token buckets of request units, one per container. */
export class ThroughputBudget {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: BudgetClock = Date.now) {}

  /**
   * Whether a request on `container` may run now, at `unitsPerSecond`: `undefined` when it may, else the
   * milliseconds until the bucket is above zero again (the retry hint).
   */
  admit(container: string, unitsPerSecond: number): number | undefined {
    const bucket = this.refilled(container, unitsPerSecond);
    if (bucket.units > 0) return undefined;
    return Math.max(1, Math.ceil(((-bucket.units + 0.01) / unitsPerSecond) * 1000));
  }

  /** Takes what an admitted request on `container` charged. */
  spend(container: string, unitsPerSecond: number, requestUnits: number): void {
    this.refilled(container, unitsPerSecond).units -= requestUnits;
  }

  /** Forgets a container (deleted, or its budget changed). */
  forget(container: string): void {
    this.buckets.delete(container);
  }

  private refilled(container: string, unitsPerSecond: number): Bucket {
    const now = this.now();
    let bucket = this.buckets.get(container);
    if (bucket === undefined) {
      bucket = { units: unitsPerSecond, at: now };
      this.buckets.set(container, bucket);
      return bucket;
    }
    const elapsed = Math.max(0, now - bucket.at);
    bucket.units = Math.min(unitsPerSecond, bucket.units + (elapsed / 1000) * unitsPerSecond);
    bucket.at = now;
    return bucket;
  }
}
