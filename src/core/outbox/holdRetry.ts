/**
 * The `outboxHoldRetry` timer's work, every minute: release each due hold (`releaseHold`, which claims it first, so
 * the timer of another instance or an operator releasing the same hold meanwhile is harmless). A failed release backs
 * off up to `OUTBOX_HOLD_RETRY_MAX` (PT5M), so a recovered target drains its holds within minutes by this timer alone.
 */
import type { OutboxHold } from '../documents/outboxHold.js';
import { systemClock } from '../ports/clock.js';
import type { Telemetry } from '../ports/telemetry.js';
import { isDue } from './holdMarker.js';
import { ReleaseOutcome, releaseHold, type HoldReleaseDeps } from './holdRelease.js';
import { errorMessage } from '../errorMessage.js';

/** What {@link retryDueHolds} needs. */
export interface HoldRetryDeps extends HoldReleaseDeps {
  telemetry: Telemetry;
  /** Releases run at once. @default 8 */
  concurrency?: number;
}

/** What one tick did. */
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

/** One tick: releases the due holds, a few at once. */
export async function retryDueHolds(deps: HoldRetryDeps): Promise<HoldRetryReport> {
  const now = (deps.clock ?? systemClock).now();
  const holds = await deps.holds.list();
  const due = holds.map((h) => h.doc).filter((h) => isDue(h, now));
  const report: HoldRetryReport = {
    holds: holds.length,
    tried: due.length,
    released: 0,
    failed: 0,
    busy: 0,
    errors: 0,
  };
  const release = async (hold: OutboxHold): Promise<void> => {
    try {
      const { outcome } = await releaseHold(deps, hold.orderId);
      if (outcome === ReleaseOutcome.Released) report.released++;
      else if (outcome === ReleaseOutcome.Busy) report.busy++;
      else if (outcome === ReleaseOutcome.Failed) report.failed++;
    } catch (error) {
      report.errors++;
      deps.telemetry.log('warn', 'outbox hold release failed; the next tick retries it', {
        orderId: hold.orderId,
        description: errorMessage(error),
      });
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(deps.concurrency ?? 8, due.length) }, async () => {
      for (let next = due.shift(); next !== undefined; next = due.shift()) await release(next);
    }),
  );
  return report;
}
