/**
 * What the timers share: a tick the order store throttles (Cosmos DB 429) is expected under load, not a failure.
 */
import type { InvocationContext, Timer } from '@azure/functions';
import { isThrottled } from '../core/errors.js';
import type { AppContext } from './appContext.js';

/**
 * `tick`, skipped with a warn line (the store's retry hint, no stack) when the store throttles it: the next tick runs
 * as usual. Any other failure rejects as before, and the host logs the invocation as failed.
 */
export function skippedWhenThrottled<R>(
  tick: (app: AppContext, timer: Timer, context: InvocationContext) => Promise<R>,
) {
  return async (app: AppContext, timer: Timer, context: InvocationContext): Promise<R | undefined> => {
    try {
      return await tick(app, timer, context);
    } catch (error) {
      if (!isThrottled(error)) throw error;
      app.telemetry.log('warn', 'store throttled, tick skipped', {
        function: context.functionName,
        invocationId: context.invocationId,
        retryAfterMs: (error as { retryAfterMs?: number }).retryAfterMs,
      });
      return undefined;
    }
  };
}
