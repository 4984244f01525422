/**
 * A release of an order's hold — by the `outboxHoldRetry` timer when it is due, or by an operator (`convoy outbox
 * retry`). It first claims the marker (`releasingUntil`, under its ETag), so the timer, another instance and an
 * operator never release one hold at once. Then, per held target (`order-events` first, in one send a page, then the
 * webhook one by one), it reads the order's stored events above the target's cursor through `heldThrough`, delivers
 * them in sequence order and advances the cursor, and ends the hold under its ETag: if the relay raised it meanwhile,
 * the end loses (412), the marker is read again and what was added goes before the next end. Once the marker is gone
 * the relay sends the order's later records itself, so every record reaches each target at least once and in order
 * across a release. A failure hands the hold back with the cursors reached and the next attempt (backoff, jitter).
 */
import { OutboxTarget, type OutboxHold } from '../documents/outboxHold.js';
import { systemClock, type Clock } from '../ports/clock.js';
import type { Stored } from '../ports/orderStore.js';
import { claimedHold, handedBackHold, holdRetryDelay, isClaimed, type Cursors } from './holdMarker.js';
import { errorMessage } from '../errorMessage.js';
import { WEBHOOK_TIMEOUT_DEFAULT_MS, type HoldBackoff } from './outboxConfig.js';
import { OutboxHoldError } from './outboxErrors.js';
import type { OrderEventSender, OrderEventWebhook, OutboxHoldStore } from './outboxPorts.js';
import { outboundEvent } from './orderEvent.js';

/**
 * How long a release's claim lasts. A release stops delivering at half of it and leaves the hold due at once, so a
 * claim never runs out under a live release; a crashed one's claim lets the next release in two ticks later.
 * @internal exported for tests
 */
export const HOLD_CLAIM_MS = 120_000;

/** Stored events read per query of a release (a long hold is delivered page by page). */
const PAGE = 100;

/** What {@link releaseHold} needs. */
export interface HoldReleaseDeps {
  holds: OutboxHoldStore;
  sender: OrderEventSender;
  /** Required when the hold holds the webhook. */
  webhook?: OrderEventWebhook;
  /** Backoff of failed releases. */
  backoff: HoldBackoff;
  /** @default systemClock */
  clock?: Clock;
  /** Jitter source in [0, 1). @default Math.random */
  random?: () => number;
  /** Bounds each send. @default 10000 (`OUTBOX_WEBHOOK_TIMEOUT`'s default) */
  timeoutMs?: number;
}

/** How a release ended. */
export const ReleaseOutcome = {
  /** Every held event delivered and the marker deleted. */
  Released: 'released',
  /** The order had no hold. */
  NoHold: 'no-hold',
  /** Another release holds the claim. */
  Busy: 'busy',
  /** A target failed: the hold stays, its cursors and next attempt recorded. */
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
  const cursors: Cursors = {};
  for (let round = 1; current !== undefined; round++) {
    report.rounds = round;
    for (const t of current.doc.targets)
      cursors[t] = Math.max(cursors[t] ?? -Infinity, current.doc.deliveredThrough[t]!);
    const failure = await deliver(deps, current.doc, cursors, report, () => clock.now() >= stopAt);
    if (failure !== undefined) {
      const nowMs = clock.now();
      if (failure === 'paused') {
        report.outcome = ReleaseOutcome.Paused;
        await handBack(deps.holds, current, (hold) => handedBackHold(hold, cursors, { nowMs }));
        return report;
      }
      const nextAttemptMs = nowMs + holdRetryDelay(current.doc.attempts + 1, deps.backoff, deps.random);
      Object.assign(report, {
        outcome: ReleaseOutcome.Failed,
        detail: failure,
        nextAttempt: new Date(nextAttemptMs).toISOString(),
      });
      await handBack(deps.holds, current, (hold) =>
        handedBackHold(hold, cursors, { nowMs, error: failure, nextAttemptMs }),
      );
      return report;
    }
    if ((await deps.holds.end(orderId, current.etag)).kind === 'written') break;
    if (round >= MAX_ROUNDS)
      throw new OutboxHoldError(`the hold of order ${orderId} kept changing during ${MAX_ROUNDS} release rounds`);
    current = await deps.holds.read(orderId); // the relay raised it: deliver what it added (gone: discarded)
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
    const current = await holds.read(orderId);
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
    const written = await holds.write(claimed, current.etag);
    if (written.kind === 'written') return { doc: claimed, etag: written.etag };
  }
  Object.assign(report, { outcome: ReleaseOutcome.Busy, detail: 'the hold kept changing' });
  return undefined;
}

/**
 * Delivers the stored events behind `hold` to each held target from its cursor on, advancing `cursors` as each goes:
 * the failure's description, `'paused'` when `stop()` said so before a delivery, or `undefined` when all went.
 */
async function deliver(
  deps: HoldReleaseDeps,
  hold: OutboxHold,
  cursors: Cursors,
  report: HoldReleaseReport,
  stop: () => boolean,
): Promise<string | undefined> {
  const timeout = () => AbortSignal.timeout(deps.timeoutMs ?? WEBHOOK_TIMEOUT_DEFAULT_MS);
  for (const target of hold.targets) {
    while (cursors[target]! < hold.heldThrough) {
      if (stop()) return 'paused';
      const events = await deps.holds.storedEvents(hold.orderId, cursors[target]!, hold.heldThrough, PAGE);
      if (events.length === 0) break;
      if (target === OutboxTarget.OrderEvents) {
        try {
          await deps.sender.send(events.map(outboundEvent), timeout());
        } catch (error) {
          return `order-events: ${errorMessage(error)}`;
        }
        report.delivered[target] += events.length;
        cursors[target] = events.at(-1)!.sequence;
        continue;
      }
      if (deps.webhook === undefined)
        return `order ${hold.orderId} is held for the webhook, but OUTBOX_WEBHOOK_URL is not set`;
      for (const event of events) {
        if (stop()) return 'paused';
        try {
          await deps.webhook.post(outboundEvent(event), timeout());
        } catch (error) {
          return `webhook: ${errorMessage(error)}`;
        }
        report.delivered[target]++;
        cursors[target] = event.sequence;
      }
    }
  }
  return undefined;
}

/** Writes `change(marker)` under its ETag, reading it again while another writer changed it; a gone marker is left. */
async function handBack(
  holds: OutboxHoldStore,
  current: Stored<OutboxHold>,
  change: (hold: OutboxHold) => OutboxHold,
): Promise<void> {
  let stored: Stored<OutboxHold> | undefined = current;
  for (let round = 0; stored !== undefined && round < MAX_ROUNDS; round++) {
    if ((await holds.write(change(stored.doc), stored.etag)).kind === 'written') return;
    stored = await holds.read(current.doc.orderId);
  }
}
