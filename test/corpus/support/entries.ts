/** An order entry as producers write it (loosely typed: the corpus breaks it on purpose). */
export type EntryBody = Record<string, unknown> & {
  entryId: string;
  orderId: string;
  sequence: number;
  type: string;
  data: Record<string, unknown>;
};

/** `OrderCreated` at `sequence` (1 unless testing the rule that it must be). */
export const created = (
  orderId: string,
  sequence = 1,
  data: Record<string, unknown> = { customerId: 'c-1', currency: 'EUR' },
): EntryBody => ({
  entryId: `${orderId}-${sequence}`,
  orderId,
  sequence,
  type: 'OrderCreated',
  data,
});

/** `TransactionAdded`. */
export const added = (orderId: string, sequence: number, transactionId: string, amount: unknown): EntryBody => ({
  entryId: `${orderId}-${sequence}`,
  orderId,
  sequence,
  type: 'TransactionAdded',
  data: { transactionId, amount },
});

/** `TransactionAmended`. */
export const amended = (orderId: string, sequence: number, transactionId: string, amount: unknown): EntryBody => ({
  entryId: `${orderId}-${sequence}`,
  orderId,
  sequence,
  type: 'TransactionAmended',
  data: { transactionId, amount },
});

/** `OrderDeleted`. */
export const deleted = (orderId: string, sequence: number): EntryBody => ({
  entryId: `${orderId}-${sequence}`,
  orderId,
  sequence,
  type: 'OrderDeleted',
  data: {},
});

/** A copy of `entry` with `changes` merged in (a key set to `undefined` is removed). */
export function edit(entry: EntryBody, changes: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...entry, ...changes };
  for (const [key, value] of Object.entries(changes)) if (value === undefined) delete out[key];
  return out;
}
