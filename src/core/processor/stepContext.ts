import type { OrderDocument } from '../documents/orderDocument.js';
import { CoreErrorCode, StoreError, errorCode } from '../errors.js';
import type { Clock } from '../ports/clock.js';
import type { OrderStore, Stored } from '../ports/orderStore.js';
import type { OrderCache } from './orderCache.js';
import type { PlanContext } from './planEntry.js';
import type { EntryOrigin } from './documentBuilders.js';

/** Rounds of "conflict → refresh → re-plan" one step tries before backing off as if the store were busy. */
export const MAX_STEP_ROUNDS = 5;

/** What a step needs from the processor. */
export interface StepContext {
  store: OrderStore;
  cache: OrderCache;
  clock: Clock;
  consumer: string;
  inboxTtlSeconds: number;
  outboxTtlSeconds: number;
}

/** The order as last seen: from the cache, else one point read (remembered). */
export async function currentOrder(ctx: StepContext, orderId: string): Promise<Stored<OrderDocument> | undefined> {
  const cached = ctx.cache.get(orderId);
  if (cached) return cached;
  const read = await ctx.store.readOrder(orderId);
  if (read) ctx.cache.remember(orderId, read.doc, read.etag);
  return read;
}

/** The planner inputs for one round. */
export function planContext(ctx: StepContext, origin: EntryOrigin): PlanContext {
  return {
    consumer: ctx.consumer,
    inboxTtlSeconds: ctx.inboxTtlSeconds,
    outboxTtlSeconds: ctx.outboxTtlSeconds,
    now: new Date(ctx.clock.now()).toISOString(),
    correlationId: origin.correlationId,
    messageId: origin.messageId,
    traceparent: origin.traceparent,
    resubmitCount: origin.resubmitCount,
  };
}

/**
 * Commits a plan. Any thrown error makes the cached order untrustworthy (an "outcome unknown" may have
 * committed), so it is forgotten before rethrowing; `onUnknown` lets the step remember the doubt.
 */
export async function commitPlan(
  ctx: StepContext,
  orderId: string,
  plan: { operations: Parameters<OrderStore['commit']>[1]; next: OrderDocument },
  onUnknown: () => void,
) {
  try {
    return await ctx.store.commit(orderId, plan.operations);
  } catch (error) {
    ctx.cache.forget(orderId);
    if (errorCode(error) === CoreErrorCode.StoreOutcomeUnknown) onUnknown();
    throw error;
  }
}

/** Thrown when a step keeps meeting concurrent changes; retried with backoff like a busy store. */
export function contention(orderId: string): StoreError {
  return new StoreError(CoreErrorCode.StoreTransient, `Order ${orderId} kept changing during the step`);
}
