/**
 * Rule 8's wait, the one place it is (docs/architecture.md, "Rule 8 under throttling"). After a busy store, an unknown
 * outcome or an order that kept changing, a step backs off while the wait still ends by its message's deadline. A
 * throttling store (Cosmos 429) only says "later": with a message to keep locked, it is waited out as its
 * `retryAfterMs` says, however long, renewing the lock as it goes, and never spends a delivery; and the whole instance
 * holds off with it.
 */
import { CORE_DEFAULTS } from '../config.js';
import { errorCode, isRetryableStoreError, isThrottled } from '../errors.js';
import { systemClock, timerSleep, type Clock, type Sleep } from '../ports/clock.js';
import type { MessageSettlement } from '../ports/messageSettlement.js';
import { CounterName } from '../ports/telemetry.js';
import { backoffDelay, waitToRetry } from '../retry.js';
import type { OrderProcessorDeps } from './processResult.js';

/**
 * When a call's store work must stop: `at` (clock ms) for a busy store or an unknown outcome; a throttling store
 * (Cosmos 429) is waited out past it when `keepLock` can keep the message locked meanwhile (rule 8).
 */
export interface Deadline {
  at: number;
  /** Renews the message's lock when a renewal is due; throws when the lock is lost. */
  keepLock?: () => Promise<void>;
}

/** The keys a wait is logged with. */
interface StepKeys {
  orderId: string;
  entryId?: string;
  sequence?: number;
}

/** One per processor instance: the hint of a 429 seen by one of its steps holds off all of them. */
export class ThrottledWait {
  private readonly clock: Clock;
  private readonly sleep: Sleep;
  /** Until when the store asked this instance to wait (its last 429's `retryAfterMs`): every step holds off till then. */
  private throttledUntil = 0;

  constructor(private readonly deps: OrderProcessorDeps) {
    this.clock = deps.clock ?? systemClock;
    this.sleep = deps.sleep ?? timerSleep;
  }

  /**
   * Holds a step off while the store asked this instance to wait: the Functions host gives an app no say in how many
   * sessions it holds, so while throttled an instance's slots wait together on the store's hint (each still holding
   * its session, so none is accepted in their place) instead of each asking again and being refused.
   */
  async holdOff(): Promise<void> {
    const wait = this.throttledUntil - this.clock.now();
    if (wait > 0) await this.sleep(wait);
  }

  /**
   * Waits before the step's next round, or rethrows: a busy store or an unknown outcome waits while the wait still
   * ends by the deadline; a throttling store with a lock to keep waits its hint, at most until the next renewal is
   * due; any other failure is rethrown.
   */
  async backOff(error: unknown, attempt: number, deadline: Deadline, keys: StepKeys): Promise<void> {
    const { options, telemetry } = this.deps;
    const throttled = deadline.keepLock !== undefined && isThrottled(error);
    const onRetry = (e: unknown, n: number, delayMs: number) => {
      telemetry.count(CounterName.StoreRetries, { cause: throttled ? 'throttled' : 'transient' });
      if (isThrottled(e)) this.throttledUntil = Math.max(this.throttledUntil, this.clock.now() + delayMs);
      const { orderId, entryId, sequence } = keys;
      const fields = { orderId, entryId, sequence, code: errorCode(e), attempt: n, delayMs };
      telemetry.log('warn', throttled ? 'store throttled, waiting' : 'transient store failure, retrying', fields);
    };
    const backoff = {
      baseDelayMs: options.retryBaseDelayMs,
      maxDelayMs: options.retryMaxDelayMs,
      random: this.deps.random,
      clock: this.clock,
      sleep: this.sleep,
    };
    if (!throttled)
      return waitToRetry(error, attempt, {
        ...backoff,
        deadline: deadline.at,
        retryable: isRetryableStoreError,
        onRetry,
      });
    await deadline.keepLock!();
    const hint = (error as { retryAfterMs?: number }).retryAfterMs;
    const wait = hint !== undefined && hint >= 0 ? hint : backoffDelay(attempt, backoff);
    const delay = Math.min(wait, this.renewalMs());
    onRetry(error, attempt, delay);
    await this.sleep(delay);
  }

  /**
   * Renews a waiting message's lock at its first throttled wait (the host's own renewal ends
   * `maxAutoLockRenewalDuration` after the session's accept, and may already have) and then every third of the lock
   * duration, so the lock outlasts any throttling.
   */
  lockKeeper(settlement: MessageSettlement): () => Promise<void> {
    let renewedAt: number | undefined;
    return async () => {
      if (renewedAt !== undefined && this.clock.now() - renewedAt < this.renewalMs()) return;
      await settlement.renewLock();
      renewedAt = this.clock.now();
    };
  }

  /** How often a message waiting out a throttling store renews its lock: a third of the lock duration. */
  private renewalMs(): number {
    return Math.floor((this.deps.options.ordersQueue?.lockDurationMs ?? CORE_DEFAULTS.lockDurationMs) / 3);
  }
}
