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
import { holdRetryDelay, joinAdds, joinedHold, type Cursors, type HoldJoin } from './holdMarker.js';
import { outboundEvent } from './orderEvent.js';
import { errorMessage } from '../errorMessage.js';
import { OUTBOX_DEFAULTS, type OutboxConfig } from './outboxConfig.js';
import { OutboxErrorCode, OutboxHoldError } from './outboxErrors.js';
import {
  silentOutboxObserver,
  type OrderEventSender,
  type OrderEventWebhook,
  type OutboxHoldStore,
  type OutboxObserver,
} from './outboxPorts.js';
import { planRelayBatch, type OrderRelayWork } from './relayBatch.js';

/** How attempts at a failing target are spaced within the budget. */
const ATTEMPT_BACKOFF = { baseDelayMs: 200, maxDelayMs: 2000 };
/** Conditional writes of a marker lost to other writers before the batch gives up (and is retried). */
const MAX_JOIN_ROUNDS = 10;

/** What the relay depends on. */
export interface OutboxRelayDeps {
  sender: OrderEventSender;
  /** The webhook, when `OUTBOX_WEBHOOK_URL` is set. @default none */
  webhook?: OrderEventWebhook;
  holds: OutboxHoldStore;
  telemetry: Telemetry;
  /** The retry budget, and the backoff of a hold's releases (@default PT1M / PT5M). */
  options: Pick<OutboxConfig, 'retryBudgetMs'> & Partial<Pick<OutboxConfig, 'holdRetry'>>;
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

/** Relays change batches of `orders` to `order-events` and the webhook. */
export class OutboxRelay {
  private readonly clock: Clock;
  private readonly sleep: Sleep;
  private readonly observer: OutboxObserver;
  private readonly holds = new HoldCache();
  private readonly acknowledged = new Acknowledged();

  constructor(private readonly deps: OutboxRelayDeps) {
    this.clock = deps.clock ?? systemClock;
    this.sleep = deps.sleep ?? timerSleep;
    this.observer = deps.observer ?? silentOutboxObserver;
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
    const deadline = this.clock.now() + this.deps.options.retryBudgetMs;
    // Every order settles before the invocation fails: none is still sending when the trigger runs the batch again.
    const settled = await Promise.allSettled(batch.orders.map((work) => this.relayOrder(work, deadline, report)));
    const infrastructure = settled.find((s) => s.status === 'rejected');
    if (infrastructure) throw infrastructure.reason;
    if (report.delivered > 0) this.observer.delivered(report.delivered);
    return report;
  }

  /** One order: its records past any hold go to the targets not held; what a target refuses, and all after it, is held. */
  private async relayOrder(work: OrderRelayWork, deadline: number, report: RelayReport): Promise<void> {
    const { orderId } = work;
    const last = work.records.at(-1)!.sequence;
    const hold = await this.holdOf(orderId, work.records[0]!.sequence);
    const records = work.records.filter((r) => r.sequence > (hold?.doc.heldThrough ?? 0));
    const { owed, error } = await this.deliver(orderId, records, hold?.doc, deadline);
    const firstOwed = Math.min(...Object.values(owed));
    if (firstOwed === Infinity) {
      this.holds.relayed(orderId, last, hold);
      report.delivered += records.length;
      return;
    }
    const cursors: Cursors = {};
    for (const [t, i] of Object.entries(owed) as [OutboxTarget, number][]) cursors[t] = records[i]!.sequence - 1;
    const joined = await this.joinHold(orderId, hold, { owed: cursors, through: last, error });
    if (joined === undefined) {
      // The hold went while this batch followed it: deliver the records behind the release.
      this.holds.met(orderId, undefined);
      return this.relayOrder({ orderId, records }, deadline, report);
    }
    this.holds.relayed(orderId, last, joined.hold);
    const held = records.slice(firstOwed);
    report.delivered += firstOwed;
    report.appended += held.length;
    if (!joined.created) return;
    // One `OutboxFailed` when a hold starts; the holds gauge alerts on a long one.
    report.held.push(orderId);
    this.observer.held(orderId);
    this.deps.telemetry.alert(AlertName.OutboxFailed, {
      orderId,
      entryId: held[0]!.entryId,
      sequence: held[0]!.sequence,
      targets: [...joined.hold.doc.targets],
      records: held.length,
      lastError: error,
    });
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
    const { sender, webhook } = this.deps;
    if (records.length === 0) return { owed: {} };
    const all = { [OutboxTarget.OrderEvents]: 0, ...(webhook && { [OutboxTarget.Webhook]: 0 }) };
    if (hold?.targets.includes(OutboxTarget.OrderEvents)) return { owed: all };
    const unsent = records.filter((r) => !this.acknowledged.has(OutboxTarget.OrderEvents, orderId, r.id));
    let error =
      unsent.length === 0
        ? undefined
        : await this.attempt(OutboxTarget.OrderEvents, orderId, deadline, (signal) =>
            sender.send(unsent.map(outboundEvent), signal),
          );
    if (error !== undefined) return { owed: all, error };
    this.acknowledged.add(
      OutboxTarget.OrderEvents,
      orderId,
      unsent.map((r) => r.id),
    );
    if (webhook === undefined) return { owed: {} };
    if (hold !== undefined) return { owed: { [OutboxTarget.Webhook]: 0 } };
    for (const [i, record] of records.entries()) {
      if (this.acknowledged.has(OutboxTarget.Webhook, orderId, record.id)) continue;
      error = await this.attempt(OutboxTarget.Webhook, orderId, deadline, (signal) =>
        webhook.post(outboundEvent(record), signal),
      );
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
      await retry(() => deliver(AbortSignal.timeout(options.retryBudgetMs)), {
        ...ATTEMPT_BACKOFF,
        random: this.deps.random,
        deadline,
        retryable: () => true,
        clock: this.clock,
        sleep: this.sleep,
        onRetry: (error, attempt, delayMs) => {
          this.observer.attemptFailed(target);
          telemetry.log('warn', 'outbox delivery failed; retrying', {
            orderId,
            target,
            attempt: attempt + 1,
            description: errorMessage(error),
            delayMs,
          });
        },
      });
      return undefined;
    } catch (error) {
      this.observer.attemptFailed(target);
      if ((error as { code?: unknown } | null)?.code === OutboxErrorCode.TransportFailed) throw error;
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

  /**
   * Puts `join` behind the order's hold, starting from `known` (the marker as this instance knows it): one write of
   * the marker under its ETag — created when a target just refused (`join.error`), else with `heldThrough` raised
   * and any newly refusing target's cursor — never a copy of an event. A lost condition reads the marker again and
   * goes on; a join that adds nothing (a replay) writes nothing. `undefined` when the hold the records were to follow
   * is gone (released or discarded meanwhile): deliver them instead.
   */
  private async joinHold(
    orderId: string,
    known: Stored<OutboxHold> | undefined,
    join: HoldJoin,
  ): Promise<{ hold: Stored<OutboxHold>; created: boolean } | undefined> {
    let current = known;
    for (let round = 0; round < MAX_JOIN_ROUNDS; round++) {
      if (current === undefined && join.error === undefined) return undefined;
      if (current !== undefined && !joinAdds(current.doc, join)) return { hold: current, created: false };
      const nowMs = this.clock.now();
      const backoff = this.deps.options.holdRetry ?? OUTBOX_DEFAULTS.holdRetry;
      const nextAttemptMs = nowMs + holdRetryDelay(0, backoff, this.deps.random);
      const marker = joinedHold(orderId, current?.doc, join, { nowMs, nextAttemptMs });
      const written = await this.deps.holds.write(marker, current?.etag);
      if (written.kind === 'written')
        return { hold: { doc: marker, etag: written.etag }, created: current === undefined };
      // Another writer got there first (a hold created or joined, released or discarded): read it again.
      current = await this.deps.holds.read(orderId);
    }
    throw new OutboxHoldError(`the hold of order ${orderId} kept changing under the relay`);
  }
}
