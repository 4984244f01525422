import { errorCode } from '../errors.js';
import { systemClock, type Clock } from '../ports/clock.js';
import type { Stored } from '../ports/orderStore.js';
import { AlertName, type Telemetry } from '../ports/telemetry.js';
import { orderEventMessage } from './orderEvent.js';
import { claimOutboxRecord, completeOutboxRecord, failOutboxRecord, type OutboxDispatchOptions } from './outboxDispatch.js';
import { decideOrderDispatch, planSweep } from './outboxOrdering.js';
import { OutboxProgress } from './outboxProgress.js';
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
    /** Orders whose delivery position the fast path remembers (see {@link OutboxProgress}). @default 4096 */
    progressOrders?: number;
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

/** What became of one attempt at a record. */
type AttemptOutcome = 'delivered' | 'claimLost' | 'stopped';

/** The work asked of an order's running pass. */
interface OrderRun {
  promise: Promise<OrderDispatchReport>;
  /** Records just created, by sequence, with the ETags their batches answered: fast-path candidates. */
  created: Map<number, Stored<OutboxDispatchRecord>>;
  /**
   * Whether the order's open records must be read: `asked` by a caller (and read again once all read are
   * delivered, for records written meanwhile), or to fill a `gap` the created records leave in what is known.
   */
  read: 'no' | 'gap' | 'asked';
}

/**
 * The two-phase outbox dispatcher: claims an order's lowest open record under its ETag (`in-progress` + lease),
 * delivers it to every target with its record id as idempotency key, then marks it `completed` (with a TTL) under
 * the claim's ETag, and goes on with the order's next record. A failed attempt backs off; the last one marks the
 * record `failed`, raises `OutboxFailed` and holds the order. Losing any ETag race just ends the pass: someone
 * else owns the record. Passes for the same order are coalesced in this process; across processes the ETags
 * arbitrate.
 *
 * The lowest open record is found with a partition query, except on the fast path: a record the processor just
 * created, handed over with its batch's ETag, is claimed straight away when this dispatcher knows every lower
 * record of its order is `completed` (see {@link OutboxProgress}) — two replaces per record, no read.
 */
export class OutboxDispatcher {
  private readonly clock: Clock;
  private readonly observer: OutboxObserver;
  private readonly progress: OutboxProgress;
  private readonly running = new Map<string, OrderRun>();

  constructor(private readonly deps: OutboxDispatcherDeps) {
    this.clock = deps.clock ?? systemClock;
    this.observer = deps.observer ?? silentOutboxObserver;
    this.progress = new OutboxProgress(deps.options.progressOrders);
  }

  /**
   * Dispatches what is due for `orderId`. With `created` — records the processor just created, with the ETags
   * its batches answered — those are taken in sequence order without reading the order's open records whenever
   * that is known to be safe, and the open records are read otherwise; without it, they are read. If a pass for
   * the order is already running here, the request joins it (it runs once more when done) and the same promise
   * is returned. Never rejects for a store or target failure (those are logged and retried later); rejects only
   * on a programming error.
   */
  dispatchOrder(orderId: string, created?: readonly Stored<OutboxDispatchRecord>[]): Promise<OrderDispatchReport> {
    const active = this.running.get(orderId);
    const run: OrderRun = active ?? { promise: undefined as unknown as Promise<OrderDispatchReport>, created: new Map(), read: 'no' };
    if (created === undefined) run.read = 'asked';
    else for (const record of created) run.created.set(record.doc.sequence, record);
    if (active) return active.promise;
    run.promise = (async () => {
      const report: OrderDispatchReport = { orderId, delivered: [], failed: [], blockedBy: undefined };
      try {
        await this.runOrder(orderId, run, report);
      } finally {
        this.running.delete(orderId);
      }
      return report;
    })();
    this.running.set(orderId, run);
    return run.promise;
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

  /**
   * Works through what was asked of an order until nothing is left: created records in sequence order while each
   * is the next after the known-completed position, else one read of the open records (which also settles every
   * created record it saw). Ends: each round consumes a created record or a query request.
   */
  private async runOrder(orderId: string, run: OrderRun, report: OrderDispatchReport): Promise<void> {
    for (;;) {
      const next = this.progress.completedThrough(orderId) + 1;
      for (const sequence of run.created.keys()) if (sequence < next) run.created.delete(sequence);
      const record = run.created.get(next);
      if (record !== undefined) {
        run.created.delete(next);
        const outcome = await this.guarded(orderId, () => this.attempt(record, report));
        // Someone else changed the record since its batch (claimed, or even delivered it): read what is open now.
        if (outcome === 'claimLost' && run.read === 'no') run.read = 'gap';
        // A failed attempt holds the order's later records: the fast path has nothing more to do.
        if (outcome === 'stopped') run.created.clear();
        continue;
      }
      // Created records not next in line: a gap in what this dispatcher knows (a restart, another instance).
      if (run.created.size > 0 && run.read === 'no') run.read = 'gap';
      run.created.clear();
      const { read } = run;
      if (read === 'no') return;
      run.read = 'no';
      await this.pass(orderId, report, read === 'asked');
    }
  }

  /** Runs `work`, logging a store failure (as the end of the pass) instead of rejecting. */
  private async guarded(orderId: string, work: () => Promise<AttemptOutcome>): Promise<AttemptOutcome> {
    try {
      return await work();
    } catch (error) {
      this.deps.telemetry.log('warn', 'outbox pass stopped', { orderId, code: errorCode(error), description: describe(error) });
      return 'stopped';
    }
  }

  /** Reads the order's open records and delivers the lowest while it is claimable; `reread`: see `OrderRun.read`. */
  private async pass(orderId: string, report: OrderDispatchReport, reread: boolean): Promise<void> {
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
          if ((await this.attempt(stored, report)) !== 'delivered') return;
          open.splice(index, 1);
          // Every record read was delivered: read again for records written meanwhile (this process's own come
          // as created records, so only a caller's request needs it).
          if (open.length === 0) {
            if (!reread) return;
            break;
          }
        }
      }
    } catch (error) {
      this.deps.telemetry.log('warn', 'outbox pass stopped', { orderId, code: errorCode(error), description: describe(error) });
    }
  }

  /**
   * Claims, delivers and completes one record, which must be its order's lowest open record: its completion
   * advances the order's known-completed position.
   */
  private async attempt(stored: Stored<OutboxDispatchRecord>, report: OrderDispatchReport): Promise<AttemptOutcome> {
    const { store, options, telemetry } = this.deps;
    // A record read open is claimable when decided, so now (time only moves leases and backoffs towards expiry);
    // a record handed over by the processor is `pending` with no backoff.
    const claimed = claimOutboxRecord(stored.doc, { leaseMs: options.leaseMs, nowMs: this.clock.now() });
    const claimEtag = claimed && (await store.replace(claimed, stored.etag));
    if (claimed === undefined || claimEtag === undefined) return 'claimLost'; // another dispatcher got there first
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
        return 'stopped';
      }
      this.progress.completed(claimed.orderId, claimed.sequence);
      report.delivered.push(claimed.id);
      this.observer.delivered(completed);
      telemetry.log('info', 'outbox record delivered', { ...fields, outcome: 'delivered' });
      return 'delivered';
    }

    const failed = failOutboxRecord(claimed, { error: describe(failure), nowMs: this.clock.now(), delivered: [...done] }, options);
    report.failed.push(claimed.id);
    this.observer.attemptFailed(failed.record, failed.exhausted);
    if ((await store.replace(failed.record, claimEtag)) === undefined) return 'stopped';
    if (failed.exhausted) {
      report.blockedBy = claimed.id;
      telemetry.alert(AlertName.OutboxFailed, { ...fields, attempts: claimed.attempts, lastError: failed.record.lastError });
    } else {
      telemetry.log('warn', 'outbox delivery failed', { ...fields, outcome: 'retrying', nextAttemptAt: failed.record.nextAttemptAt, description: failed.record.lastError });
    }
    return 'stopped';
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
