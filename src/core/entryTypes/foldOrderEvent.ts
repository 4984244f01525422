import { isDeepStrictEqual } from 'node:util';
import { errorMessage } from '../errorMessage.js';
import type { OrderEventData } from '../outbox/orderCloudEvent.js';
import { initialOrderState } from '../order/orderState.js';
import type { BusinessState } from '../order/orderView.js';
import { entryTypeOf } from './registry.js';

/**
 * What a consumer of `order-events` does with one event (docs/contracts.md, "Folding the changes"): folds its `change`
 * into the order it holds (`undefined` before the first event), as the entry's type says. An event at or below the
 * sequence folded is a repeat and changes nothing. Throws — never skips — when it cannot fold the event: a sequence
 * beyond the next one (events discarded: read the order again from the GET API), a type it does not know, a change
 * that contradicts the order, or a summary (`data.order`) other than the fold's.
 */
export function foldOrderEvent(order: BusinessState | undefined, event: OrderEventData): BusinessState {
  const { orderId, sequence, type } = event;
  // Before the first event: the state of an order nothing has been applied to (its count is the list's length).
  const { transactionCount: _count, ...initial } = initialOrderState();
  const before = order ?? { orderId, ...initial, lastSequence: 0, transactions: [] };
  if (sequence <= before.lastSequence) return before;
  const where = `order ${orderId}, event ${sequence}`;
  if (sequence > before.lastSequence + 1)
    throw new Error(`${where}: sequence ${before.lastSequence + 1} was never folded; read the order again`);
  const entryType = entryTypeOf(type);
  if (!entryType) throw new Error(`${where}: unknown entry type ${type}`);
  let next: BusinessState;
  try {
    next = { ...entryType.fold(before, event.change), lastSequence: sequence };
  } catch (error) {
    throw new Error(`${where}: ${errorMessage(error)}`);
  }
  const { status, customerId, currency, lastSequence, total } = next;
  const folded = { status, customerId, currency, lastSequence, total, transactionCount: next.transactions.length };
  if (!isDeepStrictEqual(folded, event.order))
    throw new Error(`${where}: its summary ${JSON.stringify(event.order)} is not the fold's ${JSON.stringify(folded)}`);
  return next;
}
