import type { Applied, TransactionFacts } from '../entryTypes/entryType.js';
import { OPENING_TYPE, entryTypeOf, type Entry, type EntryChange } from '../entryTypes/registry.js';
import { OrderStatus, type OrderState } from './orderState.js';

/**
 * The order state machine, on the order's summary. Returns what `entry` does without touching `state` (the next state,
 * what changed and the transaction document it writes), or why it is impossible (rule 7, `InvalidTransition`):
 * anything after the order's deletion, an entry that opens the order anywhere but at sequence 1 of a pending order, any
 * other before it, whatever the entry's type refuses, and a total outside the safe integer range. The caller has
 * already checked that `entry.sequence` is the next one, and read the transaction the entry's type reads.
 */
export function applyTransition(
  state: OrderState,
  entry: Entry,
  facts: TransactionFacts = {},
): Applied<EntryChange> | string {
  const type = entryTypeOf(entry.type)!;
  if (state.status === OrderStatus.Deleted)
    return `Order ${entry.orderId} is deleted; ${entry.type} at sequence ${entry.sequence} cannot follow OrderDeleted`;
  if (type.opensOrder) {
    if (state.status !== OrderStatus.Pending)
      return `Order ${entry.orderId} already exists; ${entry.type} cannot come twice`;
    if (entry.sequence !== 1) return `${entry.type} must be sequence 1, not ${entry.sequence}`;
  } else if (state.status === OrderStatus.Pending || entry.sequence === 1) {
    return `Sequence 1 of order ${entry.orderId} must be ${OPENING_TYPE}, not ${entry.type}`;
  }
  if (type.reads && facts.current === undefined)
    throw new TypeError(`applyTransition: ${entry.type} ${entry.entryId} needs its transaction read first`);
  const applied = type.apply(state, entry, facts);
  // Every amount is a safe integer, but their sum need not be: past 2^53 money would silently round.
  if (typeof applied !== 'string' && !Number.isSafeInteger(applied.state.total))
    return 'The order total would leave the safe integer range';
  return applied;
}
