import { z } from 'zod';
import { OrderStatus } from '../order/orderState.js';
import { entryOf } from '../schemas/entry.js';
import { entryType } from './entryType.js';

/** `OrderDeleted {}`: the order's end-of-sequence marker; it keeps its transactions and total. */
export const orderDeleted = entryType({
  schema: entryOf('OrderDeleted', z.strictObject({})),
  eventType: 'convoy.order.deleted',
  apply(state) {
    return { state: { ...state, status: OrderStatus.Deleted }, change: {} };
  },
  fold(order, _change: Record<string, never>) {
    return { ...order, status: OrderStatus.Deleted };
  },
});
