/**
 * The outbox relay: given one change batch of `orders` (what the Cosmos DB trigger hands its invocation), it
 * delivers every outbox record in it, per order in sequence order — one `order-events` send of the order's
 * records (in as few batches as they fit in), then the webhook, record by record, with `Idempotency-Key`. The
 * orders of the batch run concurrently, each with retries inside `OUTBOX_RETRY_BUDGET`.
 *
 * Per order, one decision:
 * - the order has a hold → its records are appended to the hold under its ETag instead of being sent;
 * - else they are sent; a target that still fails when the budget is spent → a hold is written with the records
 *   it did not take (and `OutboxFailed` raised), so the order stops holding the other orders of its feed range;
 * - an infrastructure failure — a transport error of `order-events`, a hold that cannot be read or written, or
 *   every order of the batch failing — rejects the invocation, so the trigger retries the whole batch (its
 *   checkpoint has not moved). A retried batch skips what a target already acknowledged to this instance; a
 *   replay elsewhere (a crash, a moved lease) repeats sends with the same `messageId`s, which `order-events`
 *   duplicate detection and the consumers' dedupe absorb.
 */
import { OutboxTarget, type HeldOutboxRecord, type OutboxHold } from '../documents/outboxHold.js';
import type { OutboxRecord } from '../documents/outboxRecord.js';
import { systemClock, timerSleep, type Clock, type Sleep } from '../ports/clock.js';
import type { Stored } from '../ports/orderStore.js';
import { AlertName, type Telemetry } from '../ports/telemetry.js';
import { backoffDelay } from '../retry.js';
import { Acknowledged } from './acknowledged.js';
import { HoldCache } from './holdCache.js';
import { orderEventMessage } from './orderEvent.js';
import { OutboxBatchError, describeFailure, isTransportFailure } from './outboxErrors.js';
import { silentOutboxObserver, type OrderEventSender, type OrderEventWebhook, type OutboundOrderEvent, type OutboxHoldStore, type OutboxObserver } from './outboxPorts.js';
import { appendToHold, heldRecord, newHold, planRelayBatch, type OrderRelayWork } from './relayBatch.js';

/** Options of the relay (resolved by `resolveOutboxConfig`). */
export interface OutboxRelayOptions {
  /** Time an invocation spends retrying a failing target before it holds the order. @default 10000 */
  retryBudgetMs: number;
  /** First delay between attempts; doubles per attempt. @default 200 */
  retryBaseDelayMs?: number;
  /** Longest delay between attempts. @default 2000 */
  retryMaxDelayMs?: number;
  /** How long the relay trusts "this order has no hold" without reading it again. @default 60000 */
  holdCacheMs?: number;
}

/** What the relay depends on. */
export interface OutboxRelayDeps {
  sender: OrderEventSender;
  /** The webhook, when `OUTBOX_WEBHOOK_URL` is set. @default none */
  webhook?: OrderEventWebhook;
  holds: OutboxHoldStore;
  telemetry: Telemetry;
  options: OutboxRelayOptions;
  /** @default systemClock */
  clock?: Clock;
  /** @default timerSleep */
  sleep?: Sleep;
  /** Jitter source in [0, 1). @default Math.random */
  random?: () => number;
  /** @default silentOutboxObserver */
  observer?: OutboxObserver;
}

/** What one change batch did. */
export interface RelayReport {
  /** Orders with outbox records in the batch. */
  orders: number;
  /** Records that reached every target. */
  delivered: number;
  /** Records appended to an existing hold. */
  appended: number;
  /** Orders this batch put on hold. */
  held: string[];
}

/** What became of one order's records. */
type OrderOutcome =
  | { kind: 'delivered'; records: number }
  | { kind: 'appended'; records: number }
  | { kind: 'failed'; work: OrderRelayWork; pending: HeldOutboxRecord[]; error: string };

/** Rounds of a conditional hold write lost to another writer before the batch gives up (and is retried). */
const MAX_HOLD_ROUNDS = 10;

/** Relays change batches of `orders` to `order-events` and the webhook. */
export class OutboxRelay {
  private readonly clock: Clock;
  private readonly sleep: Sleep;
  private readonly observer: OutboxObserver;
  private readonly holds: HoldCache;
  private readonly acknowledged = new Acknowledged();
  private readonly targets: OutboxTarget[];

  constructor(private readonly deps: OutboxRelayDeps) {
    this.clock = deps.clock ?? systemClock;
    this.sleep = deps.sleep ?? timerSleep;
    this.observer = deps.observer ?? silentOutboxObserver;
    this.holds = new HoldCache(deps.options.holdCacheMs ?? 60_000, this.clock);
    this.targets = deps.webhook === undefined ? [OutboxTarget.OrderEvents] : [OutboxTarget.OrderEvents, OutboxTarget.Webhook];
  }

  /**
   * Relays one change batch (any documents of `orders`; only outbox records and holds are read). Resolves when
   * every record was delivered, appended to its order's hold or put on hold; rejects with an `OutboxBatchError`
   * on an infrastructure failure, having skipped nothing the retry will not do again.
   */
  async relay(changes: readonly unknown[]): Promise<RelayReport> {
    const batch = planRelayBatch(changes);
    for (const hold of batch.holds) this.holds.remember(hold.doc.orderId, hold);
    const report: RelayReport = { orders: batch.orders.length, delivered: 0, appended: 0, held: [] };
    if (batch.orders.length === 0) return report;

    const deadline = this.clock.now() + this.deps.options.retryBudgetMs;
    const settled = await Promise.allSettled(batch.orders.map((work) => this.relayOrder(work, deadline)));
    const infrastructure = settled.find((s) => s.status === 'rejected');
    if (infrastructure) throw batchError('the outbox relay could not finish the batch', infrastructure.reason);
    const outcomes = settled.map((s) => (s as PromiseFulfilledResult<OrderOutcome>).value);
    const failed = outcomes.filter((o) => o.kind === 'failed');
    // Every order failing says the target, not the orders, is down: holding them all would only move the outage
    // into holds an operator must release, so the batch is retried instead.
    if (failed.length === outcomes.length) throw new OutboxBatchError(`every order of the batch failed (${failed[0]!.error})`);

    for (const o of outcomes) {
      if (o.kind === 'delivered') report.delivered += o.records;
      if (o.kind === 'appended') report.appended += o.records;
    }
    for (const o of failed) {
      await this.hold(o.work.orderId, o.pending, o.error);
      report.held.push(o.work.orderId);
    }
    if (report.delivered > 0) this.observer.delivered(report.delivered);
    return report;
  }

  /** One order's decision: append to its hold, or send; rejects only on an infrastructure failure. */
  private async relayOrder(work: OrderRelayWork, deadline: number): Promise<OrderOutcome> {
    const hold = await this.holdOf(work.orderId, work.records[0]!.sequence);
    if (hold !== undefined) {
      const appended = await this.appendOrRelease(work.orderId, hold, work.records.map((r) => heldRecord(r, this.targets)));
      if (appended !== 'released') return { kind: 'appended', records: work.records.length };
    }
    return this.send(work, deadline);
  }

  /**
   * Sends the order's records to `order-events` in one go, then to the webhook one by one, each within the budget;
   * what a target already acknowledged to this instance (a batch run again) is not sent to it again.
   */
  private async send(work: OrderRelayWork, deadline: number): Promise<OrderOutcome> {
    const events = work.records.map(outboundEvent);
    const { orderId } = work;
    const unsent = events.filter((e) => !this.acknowledged.has(OutboxTarget.OrderEvents, orderId, e.messageId));
    if (unsent.length > 0) {
      const sent = await this.attempt(OutboxTarget.OrderEvents, work, deadline, (signal) => this.deps.sender.send(unsent, signal));
      if (sent !== undefined) return { kind: 'failed', work, pending: work.records.map((r) => heldRecord(r, this.targets)), error: sent };
      this.acknowledged.add(OutboxTarget.OrderEvents, orderId, unsent.map((e) => e.messageId));
    }
    const { webhook } = this.deps;
    if (webhook !== undefined) {
      for (const [i, event] of events.entries()) {
        if (this.acknowledged.has(OutboxTarget.Webhook, orderId, event.messageId)) continue;
        const posted = await this.attempt(OutboxTarget.Webhook, work, deadline, (signal) => webhook.post(event, signal));
        if (posted !== undefined) {
          return { kind: 'failed', work, pending: work.records.slice(i).map((r) => heldRecord(r, [OutboxTarget.Webhook])), error: posted };
        }
        this.acknowledged.add(OutboxTarget.Webhook, orderId, [event.messageId]);
      }
    }
    return { kind: 'delivered', records: work.records.length };
  }

  /**
   * Runs `deliver` until it succeeds (`undefined`) or the next wait would end past `deadline` (the last failure's
   * description). A transport failure still failing then rejects: it is the relay's infrastructure, not the order.
   */
  private async attempt(target: OutboxTarget, work: OrderRelayWork, deadline: number, deliver: (signal: AbortSignal) => Promise<void>): Promise<string | undefined> {
    const { options, telemetry } = this.deps;
    for (let attempt = 0; ; attempt++) {
      try {
        await deliver(AbortSignal.timeout(options.retryBudgetMs));
        return undefined;
      } catch (error) {
        this.observer.attemptFailed(target);
        const delay = backoffDelay(attempt, { baseDelayMs: options.retryBaseDelayMs ?? 200, maxDelayMs: options.retryMaxDelayMs ?? 2000, random: this.deps.random });
        const fields = { orderId: work.orderId, target, attempt: attempt + 1, records: work.records.length, description: describeFailure(error) };
        if (this.clock.now() + delay > deadline) {
          if (isTransportFailure(error)) throw error;
          return describeFailure(error);
        }
        telemetry.log('warn', 'outbox delivery failed; retrying', { ...fields, delayMs: delay });
        await this.sleep(delay);
      }
    }
  }

  /** Puts the order on hold with its undelivered records, or adds them to a hold another writer made meanwhile. */
  private async hold(orderId: string, pending: HeldOutboxRecord[], error: string): Promise<void> {
    const hold = newHold(orderId, pending, { error, now: new Date(this.clock.now()).toISOString() });
    const created = await this.deps.holds.create(hold);
    if (created === 'changed') {
      const current = await this.deps.holds.read(orderId);
      if (current === undefined || (await this.appendOrRelease(orderId, current, pending, error)) === 'released') {
        // Released between our create and our read: this batch's retry will meet no hold and send again.
        throw new OutboxBatchError(`the hold of order ${orderId} changed while the relay wrote it`);
      }
    } else {
      this.holds.remember(orderId, { doc: hold, etag: created });
    }
    this.observer.held(orderId);
    const first = pending[0]!;
    this.deps.telemetry.alert(AlertName.OutboxFailed, {
      orderId,
      entryId: first.entryId,
      sequence: first.sequence,
      targets: [...new Set(pending.flatMap((r) => r.pendingTargets))],
      records: pending.length,
      lastError: error,
    });
  }

  /**
   * Appends `records` to the order's hold under its ETag, reading it again when another writer changed it.
   * `'released'` when the hold is gone (an operator released it): the records are then to be sent.
   */
  private async appendOrRelease(orderId: string, hold: Stored<OutboxHold>, records: HeldOutboxRecord[], error?: string): Promise<'appended' | 'released'> {
    let current: Stored<OutboxHold> | undefined = hold;
    for (let round = 0; round < MAX_HOLD_ROUNDS && current !== undefined; round++) {
      const next = appendToHold(current.doc, records, new Date(this.clock.now()).toISOString(), error);
      if (next === undefined) return 'appended'; // a replay: the hold has them already
      const written = await this.deps.holds.replace(next, current.etag);
      if (written !== 'changed' && written !== 'missing') {
        this.holds.remember(orderId, { doc: next, etag: written });
        return 'appended';
      }
      current = written === 'missing' ? undefined : await this.deps.holds.read(orderId);
    }
    if (current !== undefined) throw new OutboxBatchError(`the hold of order ${orderId} kept changing under the relay`);
    this.holds.forget(orderId);
    return 'released';
  }

  /** The order's hold: remembered, or read once (a read failure is the store's: the batch is retried). */
  private async holdOf(orderId: string, firstSequence: number): Promise<Stored<OutboxHold> | undefined> {
    const known = this.holds.lookup(orderId);
    if (known !== 'unknown') return known;
    // A hold only ever holds records a relay met before; a batch that starts at the order's first record has no
    // earlier one, so there is nothing to read (a new order costs no hold read).
    if (firstSequence === 1) {
      this.holds.remember(orderId, undefined);
      return undefined;
    }
    const read = await this.deps.holds.read(orderId);
    this.holds.remember(orderId, read);
    return read;
  }
}

/** The event of an outbox record (held or not), with the entry's trace context. */
export function outboundEvent(record: OutboxRecord | HeldOutboxRecord): OutboundOrderEvent {
  return { ...orderEventMessage(record), traceparent: record.traceparent };
}

function batchError(message: string, cause: unknown): Error {
  // A target's own error already names the failure; a store error keeps its code for the log.
  return typeof cause === 'object' && cause !== null && 'code' in cause ? (cause as unknown as Error) : new OutboxBatchError(`${message}: ${describeFailure(cause)}`, { cause });
}
