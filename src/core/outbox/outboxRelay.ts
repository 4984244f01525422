/**
 * The outbox relay: given one change batch of `orders` (what the Cosmos DB trigger hands its invocation), it
 * delivers every stored event in it (the records of applied entries), per order in sequence order — one `order-events` send of the order's
 * records (in as few batches as they fit in), then the webhook, record by record, with `Idempotency-Key`. The
 * orders of the batch run concurrently, each with retries inside `OUTBOX_RETRY_BUDGET`.
 *
 * Per order, one decision (`relayOrder`):
 * - a record a target still refuses when the budget is spent is held for that target, with every later record of
 *   the order — whatever else the batch holds, alone or not — so no feed range waits on one order's downstream;
 * - the order has a hold → its later records join it for the held targets only: a webhook hold leaves
 *   `order-events` flowing; a record `order-events` refused for itself (too large) holds both;
 * - an infrastructure failure — a transport error of `order-events`, a hold that cannot be read or written —
 *   rejects the invocation, so the trigger retries the whole batch (its checkpoint has not moved). A retried batch
 *   skips what a target already acknowledged to this instance; a replay elsewhere (a crash, a moved lease) repeats
 *   sends with the same `messageId`s, which `order-events` duplicate detection and the consumers' dedupe absorb.
 */
import { OutboxTarget, type OutboxHold } from '../documents/outboxHold.js';
import type { StoredEvent } from '../documents/entryRecord.js';
import { systemClock, timerSleep, type Clock, type Sleep } from '../ports/clock.js';
import type { Stored } from '../ports/orderStore.js';
import { AlertName, type Telemetry } from '../ports/telemetry.js';
import { retry } from '../retry.js';
import { Acknowledged } from './acknowledged.js';
import { HoldCache } from './holdCache.js';
import type { Cursors } from './holdMarker.js';
import { joinHold, type HoldJoinDeps } from './holdWriter.js';
import { outboundEvent } from './orderEvent.js';
import { errorMessage } from '../errorMessage.js';
import { isTransportFailure } from './outboxErrors.js';
import { OUTBOX_DEFAULTS, type HoldBackoff } from './outboxConfig.js';
import {
  silentOutboxObserver,
  type OrderEventSender,
  type OrderEventWebhook,
  type OutboxHoldStore,
  type OutboxObserver,
} from './outboxPorts.js';
import { planRelayBatch, type OrderRelayWork } from './relayBatch.js';

/** Options of the relay (its part of what `resolveOutboxConfig` resolves). */
interface OutboxRelayOptions {
  /** Time an invocation spends retrying a failing target before it holds the order. @default 10000 */
  retryBudgetMs: number;
  /** First delay between attempts; doubles per attempt. @default 200 */
  retryBaseDelayMs?: number;
  /** Longest delay between attempts. @default 2000 */
  retryMaxDelayMs?: number;
  /** Backoff of a hold's releases (`OUTBOX_HOLD_RETRY_FIRST` / `OUTBOX_HOLD_RETRY_MAX`). @default PT1M / PT5M */
  holdRetry?: HoldBackoff;
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
  /** Orders with stored events in the batch. */
  orders: number;
  /** Records that reached every target. */
  delivered: number;
  /** Records put behind a hold (new or not) for some target. */
  appended: number;
  /** Orders this batch put on hold (created their marker). */
  held: string[];
}

/** What became of one order's records. */
interface OrderOutcome {
  delivered: number;
  appended: number;
  created: boolean;
}

/** Relays change batches of `orders` to `order-events` and the webhook. */
export class OutboxRelay {
  private readonly clock: Clock;
  private readonly sleep: Sleep;
  private readonly observer: OutboxObserver;
  private readonly holds = new HoldCache();
  private readonly writer: HoldJoinDeps;
  private readonly acknowledged = new Acknowledged();
  private readonly targets: OutboxTarget[];

  constructor(private readonly deps: OutboxRelayDeps) {
    this.clock = deps.clock ?? systemClock;
    this.sleep = deps.sleep ?? timerSleep;
    this.observer = deps.observer ?? silentOutboxObserver;
    const backoff = deps.options.holdRetry ?? OUTBOX_DEFAULTS.holdRetry;
    this.writer = { holds: deps.holds, clock: this.clock, backoff, random: deps.random };
    this.targets =
      deps.webhook === undefined ? [OutboxTarget.OrderEvents] : [OutboxTarget.OrderEvents, OutboxTarget.Webhook];
  }

  /**
   * Relays one change batch (any documents of `orders`; only applied entry records and hold markers are read). Resolves
   * when every record was delivered or held; rejects on an infrastructure failure, having skipped nothing the
   * retry will not do again.
   */
  async relay(changes: readonly unknown[]): Promise<RelayReport> {
    const batch = planRelayBatch(changes);
    for (const hold of batch.holds) this.holds.met(hold.doc.orderId, hold);
    const report: RelayReport = { orders: batch.orders.length, delivered: 0, appended: 0, held: [] };
    if (batch.orders.length === 0) return report;

    const deadline = this.clock.now() + this.deps.options.retryBudgetMs;
    const settled = await Promise.allSettled(batch.orders.map((work) => this.relayOrder(work, deadline)));
    const infrastructure = settled.find((s) => s.status === 'rejected');
    if (infrastructure) throw infrastructure.reason;
    for (const [i, s] of settled.entries()) {
      const outcome = (s as PromiseFulfilledResult<OrderOutcome>).value;
      report.delivered += outcome.delivered;
      report.appended += outcome.appended;
      if (outcome.created) report.held.push(batch.orders[i]!.orderId);
    }
    if (report.delivered > 0) this.observer.delivered(report.delivered);
    return report;
  }

  /** One order: its records past any hold go to the targets not held; what a target refuses, and all after it, is held. */
  private async relayOrder(work: OrderRelayWork, deadline: number): Promise<OrderOutcome> {
    const { orderId } = work;
    const last = work.records.at(-1)!.sequence;
    const hold = await this.holdOf(orderId, work.records[0]!.sequence);
    const records = hold === undefined ? work.records : work.records.filter((r) => r.sequence > hold.doc.heldThrough);
    if (records.length === 0) {
      this.holds.relayed(orderId, last, hold);
      return { delivered: 0, appended: 0, created: false };
    }
    const { owed, error } = await this.deliver(orderId, records, hold?.doc, deadline);
    const firstOwed = Math.min(...Object.values(owed));
    if (firstOwed === Infinity) {
      this.holds.relayed(orderId, last, hold);
      return { delivered: records.length, appended: 0, created: false };
    }
    const cursors: Cursors = {};
    for (const [t, i] of Object.entries(owed) as [OutboxTarget, number][]) cursors[t] = records[i]!.sequence - 1;
    const joined = await joinHold(this.writer, orderId, hold, { owed: cursors, through: last, error });
    if (joined.kind === 'released') {
      // The hold went while this batch followed it: deliver the records behind the release.
      this.holds.met(orderId, undefined);
      return this.relayOrder({ orderId, records }, deadline);
    }
    this.holds.relayed(orderId, last, joined.hold);
    const held = records.slice(firstOwed);
    if (joined.created) this.heldAlert(orderId, held, joined.hold.doc.targets, error);
    return { delivered: firstOwed, appended: held.length, created: joined.created };
  }

  /**
   * Delivers `records` to the targets `hold` does not hold — `order-events` in one go, then the webhook one by one,
   * each within the budget — and says, per target it did not take them all, the index of the first record it owes
   * (a held target owes them all; a record `order-events` refused owes both targets, and so does every later one).
   */
  private async deliver(
    orderId: string,
    records: readonly StoredEvent[],
    hold: OutboxHold | undefined,
    deadline: number,
  ): Promise<{ owed: Partial<Record<OutboxTarget, number>>; error?: string }> {
    let error: string | undefined;
    if (!(hold?.targets.includes(OutboxTarget.OrderEvents) ?? false)) {
      const unsent = records
        .map(outboundEvent)
        .filter((e) => !this.acknowledged.has(OutboxTarget.OrderEvents, orderId, e.messageId));
      if (unsent.length > 0)
        error = await this.attempt(OutboxTarget.OrderEvents, orderId, deadline, (signal) =>
          this.deps.sender.send(unsent, signal),
        );
      if (error === undefined)
        this.acknowledged.add(
          OutboxTarget.OrderEvents,
          orderId,
          unsent.map((e) => e.messageId),
        );
    }
    if (hold?.targets.includes(OutboxTarget.OrderEvents) || error !== undefined)
      return { owed: Object.fromEntries(this.targets.map((t) => [t, 0])), error };
    const { webhook } = this.deps;
    if (webhook === undefined) return { owed: {} };
    if (hold !== undefined) return { owed: { [OutboxTarget.Webhook]: 0 } };
    for (const [i, record] of records.entries()) {
      if (this.acknowledged.has(OutboxTarget.Webhook, orderId, record.id)) continue;
      const event = outboundEvent(record);
      error = await this.attempt(OutboxTarget.Webhook, orderId, deadline, (signal) => webhook.post(event, signal));
      if (error !== undefined) return { owed: { [OutboxTarget.Webhook]: i }, error };
      this.acknowledged.add(OutboxTarget.Webhook, orderId, [record.id]);
    }
    return { owed: {} };
  }

  /**
   * Runs `deliver` until it succeeds (`undefined`) or the next wait would end past `deadline` (the last failure's
   * description). A transport failure still failing then rejects: it is the relay's infrastructure, not the order.
   */
  private async attempt(
    target: OutboxTarget,
    orderId: string,
    deadline: number,
    deliver: (signal: AbortSignal) => Promise<void>,
  ): Promise<string | undefined> {
    const { options, telemetry } = this.deps;
    try {
      await retry(
        async () => {
          try {
            await deliver(AbortSignal.timeout(options.retryBudgetMs));
          } catch (error) {
            this.observer.attemptFailed(target);
            throw error;
          }
        },
        {
          baseDelayMs: options.retryBaseDelayMs ?? 200,
          maxDelayMs: options.retryMaxDelayMs ?? 2000,
          random: this.deps.random,
          deadline,
          retryable: () => true,
          clock: this.clock,
          sleep: this.sleep,
          onRetry: (error, attempt, delayMs) =>
            telemetry.log('warn', 'outbox delivery failed; retrying', {
              orderId,
              target,
              attempt: attempt + 1,
              description: errorMessage(error),
              delayMs,
            }),
        },
      );
      return undefined;
    } catch (error) {
      if (isTransportFailure(error)) throw error;
      return errorMessage(error);
    }
  }

  /** The order's hold: known to this instance, or read once (a read failure is the store's: the batch is retried). */
  private async holdOf(orderId: string, firstSequence: number): Promise<Stored<OutboxHold> | undefined> {
    const known = this.holds.lookup(orderId, firstSequence);
    if (known !== 'unknown') return known;
    const read = await this.deps.holds.read(orderId);
    this.holds.met(orderId, read);
    return read;
  }

  /** One `OutboxFailed` when a hold starts; the holds gauge alerts on a long one. */
  private heldAlert(
    orderId: string,
    held: readonly StoredEvent[],
    targets: readonly OutboxTarget[],
    error: string | undefined,
  ): void {
    this.observer.held(orderId);
    this.deps.telemetry.alert(AlertName.OutboxFailed, {
      orderId,
      entryId: held[0]!.entryId,
      sequence: held[0]!.sequence,
      targets: [...targets],
      records: held.length,
      lastError: error,
    });
  }
}
