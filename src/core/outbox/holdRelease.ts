/**
 * A release of an order's hold — by the `outboxHoldRetry` timer when it is due, or by an operator (`convoy outbox
 * retry`). It first claims the marker (`releasingUntil`, under its ETag), so the timer, another instance and an
 * operator never release one hold at once. Then, per held target (`order-events` first, in one send a page, then the
 * webhook one by one), it reads the order's stored events above the target's cursor through `heldThrough`, delivers
 * them in sequence order and advances the cursor, and ends the hold under its ETag: if the relay raised it meanwhile,
 * the end loses (412), the marker is read again and what was added goes before the next end. Once the marker is gone
 * the relay sends the order's later records itself, so every record reaches each target at least once and in order
 * across a release. A failure hands the hold back with the cursors reached and the next attempt (backoff, jitter).
 *
 * The `outboxHoldRetry` timer releases each due hold every minute (`retryDueHolds`). A failed release backs off up to
 * `OUTBOX_HOLD_RETRY_MAX` (PT5M), so a recovered target drains its holds within minutes by this timer alone.
 */
import { OutboxTarget, type OutboxHold } from '../documents/outboxHold.js';
import { systemClock, type Clock } from '../ports/clock.js';
import type { Stored } from '../ports/orderStore.js';
import type { Telemetry } from '../ports/telemetry.js';
import { claimedHold, handedBackHold, holdRetryDelay, isClaimed, isDue, type Cursors } from './holdMarker.js';
import { errorMessage } from '../errorMessage.js';
import { outboundEvent } from './orderEvent.js';
import { WEBHOOK_TIMEOUT_DEFAULT_MS, type HoldBackoff } from './outboxConfig.js';
import { OutboxHoldError } from './outboxErrors.js';
import type { OrderEventSender, OrderEventWebhook, OutboxHoldStore } from './outboxPorts.js';

/**
 * How long a release's claim lasts. A release stops delivering at half of it and leaves the hold due at once, so a
 * claim never runs out under a live release; a crashed one's claim lets the next release in two ticks later.
 * @internal exported for tests
 */
export const HOLD_CLAIM_MS = 120_000;

/** Stored events read per query of a release (a long hold is delivered page by page). */
const PAGE = 100;

/** Conditional writes lost in a row before a release or a discard gives up (the hold stays; the next one goes on). */
export const MAX_ROUNDS = 20;

/** Releases the timer runs at once. */
const CONCURRENCY = 8;

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

/** What a release did. */
export interface HoldReleaseReport {
  orderId: string;
  /**
   * How it ended: `released` (every held event delivered, the marker deleted), `no-hold`, `busy` (another release
   * holds the claim), `failed` (a target failed: the hold stays, its cursors and next attempt recorded) or `paused`
   * (the claim's time ran out first: the hold stays, due again at once).
   */
  outcome: 'released' | 'no-hold' | 'busy' | 'failed' | 'paused';
  /** Deliveries made, per target. */
  delivered: Record<OutboxTarget, number>;
  /** Times the marker changed under the release and was read again. */
  rounds: number;
  /** The failure (outcome `failed`), or the claim's end (outcome `busy`). */
  detail?: string;
  /** When the next release is due (outcome `failed`). */
  nextAttempt?: string;
}

/** Releases the hold of `orderId`; rejects only when the store fails (the claim then expires by itself). */
export async function releaseHold(deps: HoldReleaseDeps, orderId: string): Promise<HoldReleaseReport> {
  const clock = deps.clock ?? systemClock;
  const report: HoldReleaseReport = {
    orderId,
    outcome: 'no-hold',
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
    const nowMs = clock.now();
    if (failure === 'paused') {
      report.outcome = 'paused';
      await handBack(deps.holds, current, (hold) => handedBackHold(hold, cursors, { nowMs }));
      return report;
    }
    if (failure !== undefined) {
      const nextAttemptMs = nowMs + holdRetryDelay(current.doc.attempts + 1, deps.backoff, deps.random);
      Object.assign(report, { outcome: 'failed', detail: failure, nextAttempt: new Date(nextAttemptMs).toISOString() });
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
  report.outcome = 'released';
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
      Object.assign(report, { outcome: 'busy', detail: `being released until ${current.doc.releasingUntil}` });
      return undefined;
    }
    const claimed = claimedHold(current.doc, now, now + HOLD_CLAIM_MS);
    const written = await holds.write(claimed, current.etag);
    if (written.kind === 'written') return { doc: claimed, etag: written.etag };
  }
  Object.assign(report, { outcome: 'busy', detail: 'the hold kept changing' });
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
  const { sender, webhook } = deps;
  const timeout = () => AbortSignal.timeout(deps.timeoutMs ?? WEBHOOK_TIMEOUT_DEFAULT_MS);
  for (const target of hold.targets) {
    while (cursors[target]! < hold.heldThrough) {
      if (stop()) return 'paused';
      if (target === OutboxTarget.Webhook && webhook === undefined)
        return `order ${hold.orderId} is held for the webhook, but OUTBOX_WEBHOOK_URL is not set`;
      const events = await deps.holds.storedEvents(hold.orderId, cursors[target]!, hold.heldThrough, PAGE);
      if (events.length === 0) break;
      // `order-events` takes the page in one send, the webhook one event per POST.
      for (const sent of target === OutboxTarget.OrderEvents ? [events] : events.map((e) => [e])) {
        if (stop()) return 'paused';
        try {
          if (target === OutboxTarget.OrderEvents) await sender.send(sent.map(outboundEvent), timeout());
          else await webhook!.post(outboundEvent(sent[0]!), timeout());
        } catch (error) {
          return `${target}: ${errorMessage(error)}`;
        }
        report.delivered[target] += sent.length;
        cursors[target] = sent.at(-1)!.sequence;
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

/** What {@link retryDueHolds} needs. */
export interface HoldRetryDeps extends HoldReleaseDeps {
  telemetry: Telemetry;
}

/** What one tick of the timer did. */
export interface HoldRetryReport {
  /** Holds there were. */
  holds: number;
  /** Releases tried (the due ones). */
  tried: number;
  released: number;
  failed: number;
  /** Another release held the claim. */
  busy: number;
  /** Releases that threw (the store failing): retried next tick, once the claim has run out. */
  errors: number;
}

/** One tick of the `outboxHoldRetry` timer: releases the due holds, a few at once. */
export async function retryDueHolds(deps: HoldRetryDeps): Promise<HoldRetryReport> {
  const now = (deps.clock ?? systemClock).now();
  const holds = await deps.holds.list();
  const due = holds.filter((h) => isDue(h.doc, now)).map((h) => h.doc.orderId);
  const report: HoldRetryReport = {
    holds: holds.length,
    tried: due.length,
    released: 0,
    failed: 0,
    busy: 0,
    errors: 0,
  };
  const release = async (orderId: string): Promise<void> => {
    try {
      const { outcome } = await releaseHold(deps, orderId);
      if (outcome === 'released' || outcome === 'failed' || outcome === 'busy') report[outcome]++;
    } catch (error) {
      report.errors++;
      deps.telemetry.log('warn', 'outbox hold release failed; the next tick retries it', {
        orderId,
        description: errorMessage(error),
      });
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENCY, due.length) }, async () => {
      for (let next = due.shift(); next !== undefined; next = due.shift()) await release(next);
    }),
  );
  return report;
}
