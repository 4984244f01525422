/**
 * A release of an order's hold — by the `outboxHoldRetry` timer when it is due, or by an operator (`convoy outbox
 * retry`). It first claims the marker (`releasingUntil`, under its ETag), so the timer, another instance and an
 * operator never release one hold at once. Then the held records go in sequence order to the targets each owes (`order-events` in
 * one send, then the webhook one by one), each deleted once delivered, and the marker is deleted under its ETag: if
 * the relay appended meanwhile, the delete loses (412), the marker is read again and the new records go before the
 * next delete. Once the marker is gone the relay sends the order's later records itself, so every record reaches
 * each target at least once and in order across a release. A failure records the next attempt (backoff with jitter).
 */
import type { OutboxHeldRecord } from '../documents/outboxHeldRecord.js';
import { OutboxTarget, type OutboxHold } from '../documents/outboxHold.js';
import { systemClock, type Clock } from '../ports/clock.js';
import type { Stored } from '../ports/orderStore.js';
import { claimedHold, failedHold, holdRetryDelay, isClaimed, pausedHold, type HoldBackoff } from './holdMarker.js';
import { errorMessage } from '../errorMessage.js';
import { WEBHOOK_TIMEOUT_DEFAULT_MS } from './outboxDefaults.js';
import { OutboxHoldError } from './outboxErrors.js';
import type { OrderEventSender, OrderEventWebhook, OutboxHoldStore } from './outboxPorts.js';
import { outboundEvent } from './outboxRelay.js';

/**
 * How long a release's claim lasts. A release stops delivering at half of it and leaves the hold due at once, so a
 * claim never runs out under a live release; a crashed one's claim lets the next release in two ticks later.
 * @internal exported for tests
 */
export const HOLD_CLAIM_MS = 120_000;

/** What {@link releaseHold} needs. */
export interface HoldReleaseDeps {
  holds: OutboxHoldStore;
  sender: OrderEventSender;
  /** Required when a held record still owes the webhook. */
  webhook?: OrderEventWebhook;
  /** Backoff of failed releases. */
  backoff: HoldBackoff;
  /** @default systemClock */
  clock?: Clock;
  /** Jitter source in [0, 1). @default Math.random */
  random?: () => number;
  /** Bounds each send. @default 10000 (`OUTBOX_WEBHOOK_TIMEOUT`'s default) */
  timeoutMs?: number;
  /** Told of each record the webhook took (a recovered webhook wakes the other holds). @default nothing */
  webhookDelivered?: () => void;
}

/** How a release ended. */
export const ReleaseOutcome = {
  /** Every held record delivered and the marker deleted. */
  Released: 'released',
  /** The order had no hold. */
  NoHold: 'no-hold',
  /** Another release holds the claim. */
  Busy: 'busy',
  /** A target failed: the hold stays, its next attempt recorded. */
  Failed: 'failed',
  /** The claim's time ran out first: the hold stays, due again at once. */
  Paused: 'paused',
} as const;
/** One of {@link ReleaseOutcome}. */
export type ReleaseOutcome = (typeof ReleaseOutcome)[keyof typeof ReleaseOutcome];

/** What a release did. */
export interface HoldReleaseReport {
  orderId: string;
  outcome: ReleaseOutcome;
  /** Deliveries made, per target. */
  delivered: Record<OutboxTarget, number>;
  /** Times the marker changed under the release and was read again. */
  rounds: number;
  /** The failure (outcome `failed`), or the claim's end (outcome `busy`). */
  detail?: string;
  /** When the next release is due (outcome `failed`). */
  nextAttempt?: string;
}

/** Conditional writes lost in a row before a release gives up (the hold stays; the next release goes on). */
const MAX_ROUNDS = 20;

/** Releases the hold of `orderId`; rejects only when the store fails (the claim then expires by itself). */
export async function releaseHold(deps: HoldReleaseDeps, orderId: string): Promise<HoldReleaseReport> {
  const clock = deps.clock ?? systemClock;
  const report: HoldReleaseReport = {
    orderId,
    outcome: ReleaseOutcome.NoHold,
    delivered: { 'order-events': 0, webhook: 0 },
    rounds: 0,
  };
  let current: Stored<OutboxHold> | undefined = await claim(deps.holds, orderId, clock, report);
  if (current === undefined) return report;
  const stopAt = clock.now() + HOLD_CLAIM_MS / 2;
  for (let round = 1; current !== undefined; round++) {
    report.rounds = round;
    const failure = await deliver(deps, await deps.holds.heldRecords(orderId), report, () => clock.now() >= stopAt);
    if (failure === 'paused') {
      report.outcome = ReleaseOutcome.Paused;
      await rewrite(deps.holds, current, (hold) => pausedHold(hold, clock.now()));
      return report;
    }
    if (failure !== undefined) {
      const nowMs = clock.now();
      const nextAttemptMs = nowMs + holdRetryDelay(current.doc.attempts + 1, deps.backoff, deps.random);
      Object.assign(report, {
        outcome: ReleaseOutcome.Failed,
        detail: failure,
        nextAttempt: new Date(nextAttemptMs).toISOString(),
      });
      await rewrite(deps.holds, current, (hold) => failedHold(hold, { nowMs, error: failure, nextAttemptMs }));
      return report;
    }
    const deleted = await deps.holds.delete(orderId, current.etag);
    if (deleted !== 'changed') break;
    if (round >= MAX_ROUNDS)
      throw new OutboxHoldError(`the hold of order ${orderId} kept changing during ${MAX_ROUNDS} release rounds`);
    current = await readHold(deps.holds, orderId); // the relay appended: deliver what it added
  }
  report.outcome = ReleaseOutcome.Released;
  return report;
}

/** Claims the marker under its ETag; `undefined` (with the report's outcome set) when there is none or it is claimed. */
export async function claim(
  holds: OutboxHoldStore,
  orderId: string,
  clock: Clock,
  report: { outcome: string; detail?: string },
): Promise<Stored<OutboxHold> | undefined> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const current = await readHold(holds, orderId);
    if (current === undefined) return undefined;
    const now = clock.now();
    if (isClaimed(current.doc, now)) {
      Object.assign(report, {
        outcome: ReleaseOutcome.Busy,
        detail: `being released until ${current.doc.releasingUntil}`,
      });
      return undefined;
    }
    const claimed = claimedHold(current.doc, now, now + HOLD_CLAIM_MS);
    const etag = await holds.replace(claimed, current.etag);
    if (etag === 'missing') return undefined;
    if (etag !== 'changed') return { doc: claimed, etag };
  }
  Object.assign(report, { outcome: ReleaseOutcome.Busy, detail: 'the hold kept changing' });
  return undefined;
}

/** The marker, if the order has one. */
export async function readHold(holds: OutboxHoldStore, orderId: string): Promise<Stored<OutboxHold> | undefined> {
  return holds.read(orderId);
}

/**
 * Delivers `held` (ascending) to the targets each owes — `order-events` in one send, then the webhook one by one —
 * deleting each record once it owes nothing. The failure's description, `'paused'` when `stop()` said so before a
 * POST, or `undefined` when everything went.
 */
async function deliver(
  deps: HoldReleaseDeps,
  held: readonly OutboxHeldRecord[],
  report: HoldReleaseReport,
  stop: () => boolean,
): Promise<string | 'paused' | undefined> {
  const timeout = () => AbortSignal.timeout(deps.timeoutMs ?? WEBHOOK_TIMEOUT_DEFAULT_MS);
  const forEvents = held.filter((r) => r.pendingTargets.includes(OutboxTarget.OrderEvents));
  if (forEvents.length > 0) {
    try {
      await deps.sender.send(
        forEvents.map((r) => outboundEvent(r.record)),
        timeout(),
      );
    } catch (error) {
      return `order-events: ${errorMessage(error)}`;
    }
    report.delivered[OutboxTarget.OrderEvents] += forEvents.length;
  }
  const sent = new Set(forEvents.map((r) => r.id));
  for (const [i, record] of held.entries()) {
    if (record.pendingTargets.includes(OutboxTarget.Webhook)) {
      const failure = stop() ? 'paused' : await post(deps, record, timeout());
      if (failure !== undefined) {
        // What order-events took is not owed to it again.
        for (const left of held.slice(i))
          if (sent.has(left.id)) await deps.holds.putHeld({ ...left, pendingTargets: [OutboxTarget.Webhook] });
        return failure;
      }
      report.delivered[OutboxTarget.Webhook]++;
    }
    await deps.holds.deleteHeld(record.orderId, record.id);
  }
  return undefined;
}

async function post(deps: HoldReleaseDeps, record: OutboxHeldRecord, signal: AbortSignal): Promise<string | undefined> {
  if (deps.webhook === undefined)
    return `order ${record.orderId} owes the webhook held records, but OUTBOX_WEBHOOK_URL is not set`;
  try {
    await deps.webhook.post(outboundEvent(record.record), signal);
  } catch (error) {
    return `webhook: ${errorMessage(error)}`;
  }
  deps.webhookDelivered?.();
  return undefined;
}

/** Writes `change(marker)` under its ETag, reading it again while another writer changed it; a gone marker is left. */
async function rewrite(
  holds: OutboxHoldStore,
  current: Stored<OutboxHold>,
  change: (hold: OutboxHold) => OutboxHold,
): Promise<void> {
  let stored: Stored<OutboxHold> | undefined = current;
  for (let round = 0; stored !== undefined && round < MAX_ROUNDS; round++) {
    const written = await holds.replace(change(stored.doc), stored.etag);
    if (written !== 'changed') return;
    stored = await readHold(holds, current.doc.orderId);
  }
}
