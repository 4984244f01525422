import type { BusinessState, OrderView } from '../../../src/core/index.js';

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

/** Polls `read` until `done` holds for its value, and returns that value; fails with the last value after `timeoutMs`. */
export async function waitForValue<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
