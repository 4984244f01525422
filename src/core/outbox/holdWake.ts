/**
 * Waking webhook holds: a webhook delivery that follows a failure says the webhook is back, so every hold for the
 * webhook is made due at once — its next attempt set within a short spread (jitter), so a recovered webhook drains
 * its holds within a couple of the hold timer's ticks, not after hours of backoff, without all of them at once.
 */
import { OutboxTarget } from '../documents/outboxHold.js';
import type { Clock } from '../ports/clock.js';
import { isClaimed, wokenHold, type HoldBackoff } from './holdMarker.js';
import type { OutboxHoldStore } from './outboxPorts.js';

/** Longest spread of woken holds: half a tick of the every-minute timer, so the next tick but one finds them due. */
const MAX_SPREAD_MS = 30_000;

/**
 * When one instance should wake the webhook holds: after a webhook delivery that followed a webhook failure it saw,
 * at most once per spread (a partial outage — some orders failing, others not — wakes them at that pace).
 */
export class WebhookWake {
  /** The spread of the woken holds' next attempts, and the least time between two wakes. */
  readonly spreadMs: number;
  private failedSinceWake = false;
  private due = false;
  private lastWake = Number.NEGATIVE_INFINITY;

  constructor(
    backoff: HoldBackoff,
    private readonly clock: Clock,
  ) {
    this.spreadMs = Math.min(backoff.firstMs / 2, MAX_SPREAD_MS);
  }

  /** A webhook attempt failed (or a wake could not be written). */
  failed(): void {
    this.failedSinceWake = true;
  }

  /** A webhook attempt succeeded. */
  delivered(): void {
    if (this.failedSinceWake) this.due = true;
  }

  /** Whether to wake the holds now; `true` consumes it. */
  take(): boolean {
    const now = this.clock.now();
    if (!this.due || now - this.lastWake < this.spreadMs) return false;
    this.due = false;
    this.failedSinceWake = false;
    this.lastWake = now;
    return true;
  }
}

/** What {@link wakeWebhookHolds} needs. */
export interface WakeDeps {
  holds: OutboxHoldStore;
  clock: Clock;
  /** @default Math.random */
  random?: () => number;
  spreadMs: number;
}

/**
 * Makes every hold for the webhook that is not due within `spreadMs` due at a random moment within it (its marker
 * replaced under its ETag; one another writer changed meanwhile is left as it is). Resolves with how many it woke.
 */
export async function wakeWebhookHolds(deps: WakeDeps): Promise<number> {
  const now = deps.clock.now();
  const random = deps.random ?? Math.random;
  let woken = 0;
  for (const stored of await deps.holds.list()) {
    const hold = stored.doc;
    if (!hold.targets.includes(OutboxTarget.Webhook) || isClaimed(hold, now)) continue;
    if (Date.parse(hold.nextAttempt) <= now + deps.spreadMs) continue;
    const written = await deps.holds.replace(
      wokenHold(hold, now, now + Math.floor(random() * deps.spreadMs)),
      stored.etag,
    );
    if (written !== 'changed' && written !== 'missing') woken++;
  }
  return woken;
}
