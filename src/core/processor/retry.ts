import { isRetryableStoreError } from '../errors.js';
import type { Clock, Sleep } from '../ports/clock.js';

/** How {@link retryTransient} backs off. */
export interface RetryOptions {
  /** Longest time from the first failure to giving up, when no `deadline` is given. @default 30000 */
  budgetMs: number;
  /**
   * Clock time (ms since the epoch) after which no retry may start, whatever the step: the processor sets one per
   * message so that all of a message's steps share one budget (rule 8). Overrides `budgetMs` when given.
   */
  deadline?: number;
  /** First delay; doubles per attempt. @default 100 */
  baseDelayMs: number;
  /** Cap of a single delay. @default 5000 */
  maxDelayMs: number;
  clock: Clock;
  sleep: Sleep;
  /** A number in [0, 1) for jitter. @default Math.random */
  random?: () => number;
  /** Called before each wait (for counters and logs). */
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

/**
 * The delay before retry `attempt` (0-based): exponential, capped, with "equal jitter" (half fixed, half
 * random) so retries of many sessions spread out without collapsing to zero. A server hint (`retryAfterMs`)
 * is honoured when longer.
 */
export function backoffDelay(
  attempt: number,
  options: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs' | 'random'> & { retryAfterMs?: number },
): number {
  const retryAfterMs = options.retryAfterMs ?? 0;
  const cap = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.min(attempt, 30));
  const jittered = cap / 2 + (options.random ?? Math.random)() * (cap / 2);
  return Math.max(Math.round(jittered), retryAfterMs);
}

/**
 * Runs `work`, retrying it while it throws a retryable store error (`StoreTransient`, `StoreOutcomeUnknown`)
 * and the next wait still ends by the deadline (or within the budget, counted from the first failure). Then
 * rethrows the last error (rule 8: the caller abandons). `work` must be safe to rerun: ours re-plans from the
 * store on every run.
 */
export async function retryTransient<T>(work: () => Promise<T>, options: RetryOptions): Promise<T> {
  let firstFailureAt: number | undefined;
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isRetryableStoreError(error)) throw error;
      const now = options.clock.now();
      firstFailureAt ??= now;
      const hint = (error as { retryAfterMs?: unknown }).retryAfterMs;
      const delay = backoffDelay(attempt, { ...options, retryAfterMs: typeof hint === 'number' ? hint : 0 });
      const giveUpAt = options.deadline ?? firstFailureAt + options.budgetMs;
      if (now + delay > giveUpAt) throw error;
      options.onRetry?.(error, attempt, delay);
      await options.sleep(delay);
    }
  }
}
