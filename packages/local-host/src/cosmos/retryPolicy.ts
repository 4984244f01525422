import type { Duration, RetryOptions } from '@azure/functions';

/** Milliseconds of a Functions `Duration` or number. */
function durationMs(value: Duration | number): number {
  if (typeof value === 'number') return value;
  return (
    (value.hours ?? 0) * 3_600_000 +
    (value.minutes ?? 0) * 60_000 +
    (value.seconds ?? 0) * 1000 +
    (value.milliseconds ?? 0)
  );
}

/**
 * The delay before retry `retry` (1-based) of a failed invocation under a function's `retry` policy, or
 * `undefined` when the policy allows no more (`maxRetryCount` −1 = unbounded). Exponential: the minimum interval
 * doubled per retry, capped at the maximum (the host adds a little jitter; a local run needs none).
 */
export function retryDelayMs(policy: RetryOptions | undefined, retry: number): number | undefined {
  if (policy === undefined) return undefined;
  if (policy.maxRetryCount >= 0 && retry > policy.maxRetryCount) return undefined;
  if (policy.strategy === 'fixedDelay') return durationMs(policy.delayInterval);
  const min = durationMs(policy.minimumInterval);
  return Math.min(durationMs(policy.maximumInterval), min * 2 ** Math.min(retry - 1, 30));
}
