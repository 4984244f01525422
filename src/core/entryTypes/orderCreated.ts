import { z } from 'zod';
import { OrderStatus } from '../order/orderState.js';
import { currencySchema, entryOf, introducedId } from '../schemas/entry.js';
import { entryType } from './entryType.js';

/** `OrderCreated { customerId, currency }`: opens the order; `customerId` 1–100 UTF-8 bytes, `currency` like `EUR`. */
export const orderCreated = entryType({
  schema: entryOf('OrderCreated', z.strictObject({ customerId: introducedId(), currency: currencySchema })),
  eventType: 'convoy.order.created',
  opensOrder: true,
  apply(state, { data: { customerId, currency } }) {
    return { state: { ...state, status: OrderStatus.Open, customerId, currency }, change: { customerId, currency } };
  },
  fold(order, change: { customerId: string; currency: string }) {
    return { ...order, status: OrderStatus.Open, ...change };
  },
});
