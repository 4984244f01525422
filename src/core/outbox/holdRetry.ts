/**
 * The `outboxHoldRetry` timer's work, every minute: release each due hold (`releaseHold`, which claims it first, so
 * the timer of another instance or an operator releasing the same hold meanwhile is harmless). When no webhook hold
 * is due, the one due soonest is tried anyway — one POST a minute at most while the webhook is down — so that the
 * first delivery after the webhook recovers is seen here too, and wakes every other webhook hold (`holdWake.ts`):
 * after an outage the holds drain through this timer within two of its ticks, with no operator. `OutboxFailed` is
 * raised again for a hold still there after half of `OUTBOX_TTL`.
 */
import { OutboxTarget, type OutboxHold } from '../documents/outboxHold.js';
import { systemClock } from '../ports/clock.js';
import type { Stored } from '../ports/orderStore.js';
import { AlertName, type Telemetry } from '../ports/telemetry.js';
import { isClaimed, isDue } from './holdMarker.js';
import { ReleaseOutcome, releaseHold, type HoldReleaseDeps, type HoldReleaseReport } from './holdRelease.js';
import { wakeWebhookHolds, type WebhookWake } from './holdWake.js';
import { errorMessage } from '../errorMessage.js';

/** What {@link retryDueHolds} needs. */
export interface HoldRetryDeps extends HoldReleaseDeps {
  telemetry: Telemetry;
  /** Shared with the relay of this instance: its webhook failures and deliveries count here too. */
  wake: WebhookWake;
  /** Age of a hold after which `OutboxFailed` is raised once more (half of `OUTBOX_TTL`). */
  repeatAlertAfterMs: number;
  /** Releases run at once. @default 8 */
  concurrency?: number;
}

/** What one tick did. */
export interface HoldRetryReport {
  /** Holds there were. */
  holds: number;
  /** Releases tried (the due ones, and a webhook probe). */
  tried: number;
  released: number;
  failed: number;
  /** Another release held the claim. */
  busy: number;
  /** Releases that threw (the store failing): retried next tick, once the claim has run out. */
  errors: number;
  /** Webhook holds made due by a webhook delivery of this tick. */
  woken: number;
}

/** One tick: releases the due holds (and a webhook probe), then wakes the webhook holds if the webhook took something. */
export async function retryDueHolds(deps: HoldRetryDeps): Promise<HoldRetryReport> {
  const clock = deps.clock ?? systemClock;
  const now = clock.now();
  const holds = await deps.holds.list();
  const chosen = dueOrProbe(
    holds.map((h) => h.doc),
    now,
  );
  const report: HoldRetryReport = {
    holds: holds.length,
    tried: chosen.length,
    released: 0,
    failed: 0,
    busy: 0,
    errors: 0,
    woken: 0,
  };
  // Before the releases, whose claims change the ETags listed.
  await alertOldHolds(deps, holds, now);
  let webhookTook = false;
  const release = async (hold: OutboxHold): Promise<void> => {
    let result: HoldReleaseReport;
    try {
      result = await releaseHold(
        { ...deps, webhookDelivered: () => ((webhookTook = true), deps.wake.delivered()) },
        hold.orderId,
      );
    } catch (error) {
      report.errors++;
      deps.telemetry.log('warn', 'outbox hold release failed; the next tick retries it', {
        orderId: hold.orderId,
        description: errorMessage(error),
      });
      return;
    }
    if (result.outcome === ReleaseOutcome.Released) report.released++;
    else if (result.outcome === ReleaseOutcome.Busy) report.busy++;
    else if (result.outcome === ReleaseOutcome.Failed) {
      report.failed++;
      if (hold.targets.includes(OutboxTarget.Webhook)) deps.wake.failed();
    }
  };
  const queue = [...chosen];
  await Promise.all(
    Array.from({ length: Math.min(deps.concurrency ?? 8, queue.length) }, async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) await release(next);
    }),
  );
  if (webhookTook)
    report.woken = await wakeWebhookHolds({
      holds: deps.holds,
      clock,
      random: deps.random,
      spreadMs: deps.wake.spreadMs,
    });
  return report;
}

/** The due holds; with none due for the webhook, the webhook hold due soonest as well (the probe). */
function dueOrProbe(holds: readonly OutboxHold[], nowMs: number): OutboxHold[] {
  const due = holds.filter((h) => isDue(h, nowMs));
  if (due.some((h) => h.targets.includes(OutboxTarget.Webhook))) return due;
  const waiting = holds.filter((h) => h.targets.includes(OutboxTarget.Webhook) && !isClaimed(h, nowMs));
  const probe = waiting.sort((a, b) => Date.parse(a.nextAttempt) - Date.parse(b.nextAttempt))[0];
  return probe === undefined ? due : [...due, probe];
}

/** Raises `OutboxFailed` once more for each hold older than `repeatAlertAfterMs`, marking it so (under its ETag). */
async function alertOldHolds(deps: HoldRetryDeps, holds: readonly Stored<OutboxHold>[], nowMs: number): Promise<void> {
  for (const { doc, etag } of holds) {
    if (doc.repeatAlertedAt !== undefined || Date.parse(doc.since) + deps.repeatAlertAfterMs > nowMs) continue;
    // Only the writer that marks it raises it: a hold changed meanwhile is met again next tick.
    const written = await deps.holds.replace({ ...doc, repeatAlertedAt: new Date(nowMs).toISOString() }, etag);
    if (written === 'changed' || written === 'missing') continue;
    deps.telemetry.alert(AlertName.OutboxFailed, {
      orderId: doc.orderId,
      entryId: '',
      sequence: doc.heldThrough,
      targets: doc.targets,
      since: doc.since,
      reason: 'outbox hold older than half of OUTBOX_TTL',
      lastError: doc.lastError,
    });
  }
}
