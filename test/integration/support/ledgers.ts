import { randomUUID } from 'node:crypto';

/** An entry as producers write it. */
export type TestEntry = {
  entryId: string;
  orderId: string;
  sequence: number;
  type: string;
  data: Record<string, unknown>;
};

/** A unique id with a readable prefix. */
export const uid = (prefix: string): string => `${prefix}-${randomUUID().slice(0, 8)}`;

/** The entries of one order: created, `transactions` additions, optionally deleted. */
export function orderEntries(
  orderId: string,
  transactions: number[],
  options: { deleted?: boolean; from?: number } = {},
): TestEntry[] {
  const entries: TestEntry[] = [
    {
      entryId: `${orderId}-1`,
      orderId,
      sequence: 1,
      type: 'OrderCreated',
      data: { customerId: 'c-1', currency: 'EUR' },
    },
  ];
  transactions.forEach((amount, i) =>
    entries.push({
      entryId: `${orderId}-${i + 2}`,
      orderId,
      sequence: i + 2,
      type: 'TransactionAdded',
      data: { transactionId: `t-${i + 1}`, amount },
    }),
  );
  if (options.deleted)
    entries.push({
      entryId: `${orderId}-${entries.length + 1}`,
      orderId,
      sequence: entries.length + 1,
      type: 'OrderDeleted',
      data: {},
    });
  return entries.slice((options.from ?? 1) - 1);
}

/** Interleaves several orders' entries round robin, keeping each order's own order. */
export function interleave(...orders: TestEntry[][]): TestEntry[] {
  const out: TestEntry[] = [];
  for (let i = 0; orders.some((o) => i < o.length); i++) for (const o of orders) if (i < o.length) out.push(o[i]!);
  return out;
}
