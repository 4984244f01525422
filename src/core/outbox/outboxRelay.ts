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
import type { OutboxHeldRecord } from '../documents/outboxHeldRecord.js';
import { OutboxTarget, type OutboxHold } from '../documents/outboxHold.js';
import type { StoredEvent } from '../documents/entryRecord.js';
import { systemClock, timerSleep, type Clock, type Sleep } from '../ports/clock.js';
import type { Stored } from '../ports/orderStore.js';
import { AlertName, type Telemetry } from '../ports/telemetry.js';
import { retry } from '../retry.js';
import { Acknowledged } from './acknowledged.js';
import { HoldCache } from './holdCache.js';
import { heldCopy, type HoldBackoff } from './holdMarker.js';
import { WebhookWake, wakeWebhookHolds } from './holdWake.js';
import { HoldWriter } from './holdWriter.js';
import { orderEventMessage } from './orderEvent.js';
import { errorMessage } from '../errorMessage.js';
import { isTransportFailure } from './outboxErrors.js';
import { HOLD_RETRY_DEFAULTS } from './outboxDefaults.js';
import {
  silentOutboxObserver,
  type OrderEventSender,
  type OrderEventWebhook,
  type OutboundOrderEvent,
  type OutboxHoldStore,
  type OutboxObserver,
} from './outboxPorts.js';
import { planRelayBatch, type OrderRelayWork } from './relayBatch.js';

/** Options of the relay (resolved by `resolveOutboxConfig`). */
export interface OutboxRelayOptions {
  /** Time an invocation spends retrying a failing target before it holds the order. @default 10000 */
  retryBudgetMs: number;
  /** First delay between attempts; doubles per attempt. @default 200 */
  retryBaseDelayMs?: number;
  /** Longest delay between attempts. @default 2000 */
  retryMaxDelayMs?: number;
  /** Backoff of a hold's releases (`OUTBOX_HOLD_RETRY_FIRST` / `OUTBOX_HOLD_RETRY_MAX`). @default PT1M / PT1H */
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
  /** Says when a webhook delivery should wake the webhook holds (shared with the hold timer). @default a new one */
  wake?: WebhookWake;
}

/** What one change batch did. */
export interface RelayReport {
  /** Orders with stored events in the batch. */
  orders: number;
  /** Records that reached every target. */
  delivered: number;
  /** Records held (appended to a hold, new or not). */
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
  private readonly writer: HoldWriter;
  private readonly wake: WebhookWake;
  private readonly acknowledged = new Acknowledged();
  private readonly targets: OutboxTarget[];

  constructor(private readonly deps: OutboxRelayDeps) {
    this.clock = deps.clock ?? systemClock;
    this.sleep = deps.sleep ?? timerSleep;
    this.observer = deps.observer ?? silentOutboxObserver;
    const backoff = deps.options.holdRetry ?? HOLD_RETRY_DEFAULTS;
    this.writer = new HoldWriter({ holds: deps.holds, clock: this.clock, backoff, random: deps.random });
    this.wake = deps.wake ?? new WebhookWake(backoff, this.clock);
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
    await this.wakeWebhookHolds();
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
    const held = records.flatMap((r, i) => (owed[i]!.length > 0 ? [heldCopy(r, owed[i]!)] : []));
    if (held.length === 0) {
      this.holds.relayed(orderId, last, hold);
      return { delivered: records.length, appended: 0, created: false };
    }
    const written = await this.writer.hold(orderId, hold, held, error);
    if (written.kind === 'released') {
      this.holds.met(orderId, undefined);
      // The hold went while this batch joined it: what did not join it is delivered now, behind the release.
      const rest = await this.relayOrder(
        { orderId, records: records.filter((r) => r.sequence >= held[written.from]!.sequence) },
        deadline,
      );
      return { ...rest, appended: rest.appended + written.appended };
    }
    this.holds.relayed(orderId, last, written.hold);
    if (written.created) this.heldAlert(orderId, held, error);
    return { delivered: records.length - held.length, appended: written.appended, created: written.created };
  }

  /**
   * Delivers `records` to the targets `hold` does not hold — `order-events` in one go, then the webhook one by one,
   * each within the budget — and says, per record, which targets it still owes: those held, the one that refused
   * it, and every one after a refusal (a record `order-events` refused owes both, and so does every later one).
   */
  private async deliver(
    orderId: string,
    records: readonly StoredEvent[],
    hold: OutboxHold | undefined,
    deadline: number,
  ): Promise<{ owed: OutboxTarget[][]; error?: string }> {
    const owed = records.map((): OutboxTarget[] => []);
    let error: string | undefined;
    const eventsHeld = hold?.targets.includes(OutboxTarget.OrderEvents) ?? false;
    if (!eventsHeld) {
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
    if (eventsHeld || error !== undefined) {
      for (const o of owed) o.push(...this.targets);
      return { owed, error };
    }
    const { webhook } = this.deps;
    if (webhook === undefined) return { owed };
    for (const [i, record] of records.entries()) {
      if (hold === undefined && error === undefined) {
        if (this.acknowledged.has(OutboxTarget.Webhook, orderId, record.id)) continue;
        const event = outboundEvent(record);
        error = await this.attempt(OutboxTarget.Webhook, orderId, deadline, (signal) => webhook.post(event, signal));
        if (error === undefined) {
          this.acknowledged.add(OutboxTarget.Webhook, orderId, [record.id]);
          this.wake.delivered();
          continue;
        }
      }
      owed[i]!.push(OutboxTarget.Webhook);
    }
    return { owed, error };
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
            if (target === OutboxTarget.Webhook) this.wake.failed();
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
    const read = await this.writer.read(orderId);
    this.holds.met(orderId, read);
    return read;
  }

  private heldAlert(orderId: string, held: readonly OutboxHeldRecord[], error: string | undefined): void {
    this.observer.held(orderId);
    const first = held[0]!;
    this.deps.telemetry.alert(AlertName.OutboxFailed, {
      orderId,
      entryId: first.record.entryId,
      sequence: first.sequence,
      targets: [...new Set(held.flatMap((r) => r.pendingTargets))],
      records: held.length,
      lastError: error,
    });
  }

  /** After a webhook delivery that followed a failure, every webhook hold is made due (never failing the batch). */
  private async wakeWebhookHolds(): Promise<void> {
    if (!this.wake.take()) return;
    try {
      await wakeWebhookHolds({
        holds: this.deps.holds,
        clock: this.clock,
        random: this.deps.random,
        spreadMs: this.wake.spreadMs,
      });
    } catch (error) {
      this.wake.failed();
      this.deps.telemetry.log(
        'warn',
        'outbox relay could not wake the webhook holds; the hold timer retries them on their schedule',
        { description: errorMessage(error) },
      );
    }
  }
}

/** The event of a stored event (held or not), with the entry's trace context. */
export function outboundEvent(record: StoredEvent): OutboundOrderEvent {
  return { ...orderEventMessage(record), traceparent: record.traceparent };
}
