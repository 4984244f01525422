import { until } from '../../support/serviceBusWaits.js';
import { errorMessage, type BusinessState, type OrderView } from '../../../src/core/index.js';

/** The business state of a GET view: the view without the operational `parked` and `rejected` lists. */
export function businessStateOf(view: OrderView): BusinessState {
  const { orderId, status, customerId, currency, lastSequence, total, transactions } = view;
  return { orderId, status, customerId, currency, lastSequence, total, transactions };
}

/** How many items share each key. */
export function countBy<T>(items: readonly T[], key: (item: T) => string | undefined): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) {
    const k = key(item) ?? '(none)';
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return counts;
}

/**
 * Polls `read` until `done` holds for its value, and returns that value. Ends as soon as it holds; fails with the
 * last value seen after the shared hang guard ({@link until}).
 */
export async function waitForValue<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  let last: T | undefined;
  try {
    await until(async () => done((last = await read())), what);
  } catch (error) {
    throw new Error(`${errorMessage(error)}; last seen: ${JSON.stringify(last)}`, { cause: error });
  }
  return last as T;
}
