import { errorCode } from '../errors.js';
import { systemClock, type Clock } from '../ports/clock.js';
import type { Stored } from '../ports/orderStore.js';
import { AlertName, type Telemetry } from '../ports/telemetry.js';
import { orderEventMessage } from './orderEvent.js';
import { claimOutboxRecord, completeOutboxRecord, failOutboxRecord, type OutboxDispatchOptions } from './outboxDispatch.js';
import { decideOrderDispatch, planSweep } from './outboxOrdering.js';
import { silentOutboxObserver, type OrderEventTarget, type OutboxObserver, type OutboxStore } from './outboxPorts.js';
import type { DeliveryReceipt, OutboxDispatchRecord } from './outboxRecordState.js';

/** What the dispatcher depends on. */
export interface OutboxDispatcherDeps {
  store: OutboxStore;
  /** Delivery targets, in the order they are tried (`order-events` first). */
  targets: readonly OrderEventTarget[];
  telemetry: Telemetry;
  options: OutboxDispatchOptions & {
    /** Largest number of open records a sweep reads. @default 1000 */
    sweepLimit?: number;
    /** Orders a sweep dispatches at once. @default 8 */
    sweepConcurrency?: number;
  };
  /** @default systemClock */
  clock?: Clock;
  /** @default silentOutboxObserver */
  observer?: OutboxObserver;
}

/** What one pass over an order did. */
export interface OrderDispatchReport {
  orderId: string;
  delivered: string[];
  /** Record ids whose attempt failed (back to pending, or `failed`). */
  failed: string[];
  /** The `failed` record holding the order, if any. */
  blockedBy: string | undefined;
}

/** What a sweep did. */
export interface SweepReport {
  orders: number;
  delivered: number;
  failed: number;
  blocked: number;
}

// Delivery gets this share of the lease, so a slow target is cut off before another dispatcher may reclaim.
const DELIVERY_SHARE_OF_LEASE = 0.8;
// Records one pass takes for an order before leaving the rest to the next pass.
const MAX_RECORDS_PER_PASS = 200;

/**
 * The two-phase outbox dispatcher: claims an order's lowest open record under its ETag (`in-progress` + lease),
 * delivers it to every target with its record id as idempotency key, then marks it `completed` (with a TTL) under
 * the claim's ETag, and goes on with the order's next record. A failed attempt backs off; the last one marks the
 * record `failed`, raises `OutboxFailed` and holds the order. Losing any ETag race just ends the pass: someone
 * else owns the record. Passes for the same order are coalesced in this process; across processes the ETags
 * arbitrate.
 */
export class OutboxDispatcher {
  private readonly clock: Clock;
  private readonly observer: OutboxObserver;
  private readonly running = new Map<string, { promise: Promise<OrderDispatchReport>; again: boolean }>();

  constructor(private readonly deps: OutboxDispatcherDeps) {
    this.clock = deps.clock ?? systemClock;
    this.observer = deps.observer ?? silentOutboxObserver;
  }

  /**
   * Dispatches what is due for `orderId`. If a pass for the order is already running here, it runs once more
   * when done (to pick up records written meanwhile) and the same promise is returned. Never rejects for a
   * store or target failure (those are logged and retried later); rejects only on a programming error.
   */
  dispatchOrder(orderId: string): Promise<OrderDispatchReport> {
    const active = this.running.get(orderId);
    if (active) {
      active.again = true;
      return active.promise;
    }
    const state = { promise: undefined as unknown as Promise<OrderDispatchReport>, again: false };
    state.promise = (async () => {
      const report: OrderDispatchReport = { orderId, delivered: [], failed: [], blockedBy: undefined };
      try {
        do {
          state.again = false;
          await this.pass(orderId, report);
        } while (state.again);
      } finally {
        this.running.delete(orderId);
      }
      return report;
    })();
    this.running.set(orderId, state);
    return state.promise;
  }

  /** Resolves once every pass running in this process has finished. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()].map((r) => r.promise));
  }

  /**
   * The timer's sweep: reads open records across orders, dispatches every order whose lowest open record is due,
   * then reports the open counts. Rejects if the store cannot be queried (the timer logs it and runs again).
   */
  async sweep(): Promise<SweepReport> {
    const { store, options } = this.deps;
    const plan = planSweep(await store.openSummaries(options.sweepLimit ?? 1000), this.clock.now());
    const reports = await mapConcurrently(plan.due, options.sweepConcurrency ?? 8, (orderId) => this.dispatchOrder(orderId));
    const counts = await store.countOpen();
    this.observer.counts(counts);
    return {
      orders: plan.due.length,
      delivered: reports.reduce((n, r) => n + r.delivered.length, 0),
      failed: reports.reduce((n, r) => n + r.failed.length, 0),
      blocked: plan.blocked.length,
    };
  }

  private async pass(orderId: string, report: OrderDispatchReport): Promise<void> {
    let taken = 0;
    try {
      for (;;) {
        const open = await this.deps.store.openRecords(orderId);
        for (;;) {
          const decision = decideOrderDispatch(open.map((s) => s.doc), this.clock.now());
          if (decision.kind === 'blocked') report.blockedBy = decision.record.id;
          if (decision.kind !== 'claim' || taken >= MAX_RECORDS_PER_PASS) return;
          const index = open.findIndex((s) => s.doc.id === decision.record.id);
          const stored = open[index]!;
          taken++;
          const delivered = await this.attempt(stored, report);
          if (!delivered) return;
          open.splice(index, 1);
          // Every record read was delivered: read again for records written meanwhile.
          if (open.length === 0) break;
        }
      }
    } catch (error) {
      this.deps.telemetry.log('warn', 'outbox pass stopped', { orderId, code: errorCode(error), description: describe(error) });
    }
  }

  /** Claims, delivers and completes one record. True when it was completed by this call. */
  private async attempt(stored: Stored<OutboxDispatchRecord>, report: OrderDispatchReport): Promise<boolean> {
    const { store, options, telemetry } = this.deps;
    // Claimable when decided, so claimable now: time only moves leases and backoffs towards expiry.
    const claimed = claimOutboxRecord(stored.doc, { leaseMs: options.leaseMs, nowMs: this.clock.now() })!;
    const claimEtag = await store.replace(claimed, stored.etag);
    if (claimEtag === undefined) return false; // another dispatcher claimed it first
    const fields = {
      orderId: claimed.orderId,
      entryId: claimed.entryId,
      sequence: claimed.sequence,
      ledgerId: claimed.correlationId,
      recordId: claimed.id,
      attempt: claimed.attempts,
    };

    // The trace is the record's own, written with the entry: it survives restarts and other instances.
    const event = { ...orderEventMessage(claimed), traceparent: claimed.traceparent };
    const done = new Set(claimed.delivered ?? []);
    const receipts: DeliveryReceipt[] = [...done].map((target) => ({ target, detail: 'taken in an earlier attempt' }));
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new Error(`delivery exceeded ${Math.round(options.leaseMs * DELIVERY_SHARE_OF_LEASE)} ms`)), options.leaseMs * DELIVERY_SHARE_OF_LEASE);
    let failure: unknown;
    try {
      for (const target of this.deps.targets) {
        if (done.has(target.name)) continue;
        receipts.push(await target.deliver(event, abort.signal));
        done.add(target.name);
      }
    } catch (error) {
      failure = error;
    } finally {
      clearTimeout(timer);
    }

    if (failure === undefined) {
      const completed = completeOutboxRecord(claimed, { nowMs: this.clock.now(), ttlSeconds: options.completedTtlSeconds, result: receipts });
      if ((await store.replace(completed, claimEtag)) === undefined) {
        // The lease lapsed and another dispatcher took over; it re-delivers with the same key.
        telemetry.log('warn', 'outbox completion lost its claim', { ...fields, outcome: 'claimLost' });
        return false;
      }
      report.delivered.push(claimed.id);
      this.observer.delivered(completed);
      telemetry.log('info', 'outbox record delivered', { ...fields, outcome: 'delivered' });
      return true;
    }

    const failed = failOutboxRecord(claimed, { error: describe(failure), nowMs: this.clock.now(), delivered: [...done] }, options);
    report.failed.push(claimed.id);
    this.observer.attemptFailed(failed.record, failed.exhausted);
    if ((await store.replace(failed.record, claimEtag)) === undefined) return false;
    if (failed.exhausted) {
      report.blockedBy = claimed.id;
      telemetry.alert(AlertName.OutboxFailed, { ...fields, attempts: claimed.attempts, lastError: failed.record.lastError });
    } else {
      telemetry.log('warn', 'outbox delivery failed', { ...fields, outcome: 'retrying', nextAttemptAt: failed.record.nextAttemptAt, description: failed.record.lastError });
    }
    return false;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs `work` over `items` with at most `limit` at a time, keeping results in input order. */
async function mapConcurrently<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
