import type { Clock, Sleep } from './ports/clock.js';

/** How {@link backoffDelay} spaces attempts. */
export interface BackoffOptions {
  /** First delay; doubles per attempt. */
  baseDelayMs: number;
  /** Cap of a single delay. */
  maxDelayMs: number;
  /** A number in [0, 1) for jitter. @default Math.random */
  random?: () => number;
}

/**
 * The delay before retry `attempt` (0-based): exponential, capped, with "equal jitter" (half fixed, half random) so
 * retries of many sessions spread out without collapsing to zero. A server hint (`retryAfterMs`) wins when longer.
 */
export function backoffDelay(attempt: number, options: BackoffOptions & { retryAfterMs?: number }): number {
  const cap = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.min(attempt, 30));
  const jittered = cap / 2 + (options.random ?? Math.random)() * (cap / 2);
  return Math.max(Math.round(jittered), options.retryAfterMs ?? 0);
}

/** How {@link retry} runs. */
export interface RetryOptions extends BackoffOptions {
  /** Clock time (ms since the epoch) after which no retry may start: the next wait must end by it. */
  deadline: number;
  /** Which failures are worth another attempt; any other is rethrown at once. */
  retryable: (error: unknown) => boolean;
  clock: Clock;
  sleep: Sleep;
  /** Called before each wait (for counters and logs). */
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

/**
 * Runs `work` until it resolves, retrying a retryable failure after {@link waitToRetry}; then rethrows the last
 * failure. `work` must be safe to run again. The outbox relay's deliveries use it; the processor's step, one loop of
 * its own, waits with {@link waitToRetry} directly (rule 8).
 */
export async function retry<T>(work: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await work(attempt);
    } catch (error) {
      await waitToRetry(error, attempt, options);
    }
  }
}

/**
 * The wait before retry `attempt` (0-based) after `error`: {@link backoffDelay}, honouring a failure's
 * `retryAfterMs`, if the failure is retryable and the wait still ends by the deadline; otherwise rethrows `error`.
 * (A throttling store's wait past the deadline is the processor's own: `processor/throttledWait.ts`.)
 */
export async function waitToRetry(error: unknown, attempt: number, options: RetryOptions): Promise<void> {
  if (!options.retryable(error)) throw error;
  const hint = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  const delay = backoffDelay(attempt, { ...options, retryAfterMs: typeof hint === 'number' && hint >= 0 ? hint : 0 });
  if (options.clock.now() + delay > options.deadline) throw error;
  options.onRetry?.(error, attempt, delay);
  await options.sleep(delay);
}
