import { CoreErrorCode, StoreError } from '../errors.js';
import type { OrderStore } from '../ports/orderStore.js';
import { orderView, type OrderView } from './orderView.js';

/** Reads of an order that keeps changing before the view gives up (a transient failure: the caller may retry). */
const MAX_VIEW_ROUNDS = 5;

/**
 * The GET view of `orderId`, consistent: its summary (one point read), its transactions (one single-partition query)
 * and the summary once more — if its ETag changed meanwhile (an entry was applied between the two), it reads again, so
 * the transactions listed are those of the summary shown. An order with no transactions needs no query. `undefined`
 * when nothing of the order exists.
 * @throws StoreError `StoreTransient` when the order kept changing for {@link MAX_VIEW_ROUNDS} reads.
 */
export async function readOrderView(
  store: Pick<OrderStore, 'readOrder' | 'listTransactions'>,
  orderId: string,
): Promise<OrderView | undefined> {
  let order = await store.readOrder(orderId);
  for (let round = 0; round < MAX_VIEW_ROUNDS; round++) {
    if (order === undefined) return undefined;
    if (order.doc.state.transactionCount === 0) return orderView(order.doc, []);
    const transactions = await store.listTransactions(orderId);
    const again = await store.readOrder(orderId);
    if (again?.etag === order.etag) return orderView(order.doc, transactions);
    order = again;
  }
  throw new StoreError(CoreErrorCode.StoreTransient, `Order ${orderId} kept changing while its view was read`);
}
