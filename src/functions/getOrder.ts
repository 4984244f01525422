/**
 * `GET /api/orders/{orderId}`: an order's view (business state plus its `parked` and `rejected` lists, and its
 * outbox `hold` while one exists): the order's summary and its transactions, read consistently (`readOrderView`).
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { holdView } from '../core/index.js';
import { readOrderView } from '../core/order/readOrderView.js';
import { ORDER_ID_MAX_LENGTH } from '../core/schemas/limits.js';
import { defineFunction, type AppContext } from './appContext.js';
import { unavailableOrRethrow } from './httpErrors.js';

/**
 * 200 with the view; 404 when nothing of the order exists (no order document, not even a pending one); 503 when
 * Cosmos DB is throttling or unreachable.
 * @internal
 */
export async function getOrder(app: AppContext, request: HttpRequest): Promise<HttpResponseInit> {
  const orderId = request.params.orderId ?? '';
  // An id no order can have (empty, or beyond the SessionId limit) is simply not found.
  const possible = orderId !== '' && orderId.length <= ORDER_ID_MAX_LENGTH;
  try {
    const view = possible ? await readOrderView(app.store, orderId) : undefined;
    if (view === undefined) return { status: 404, jsonBody: { error: 'NotFound', orderId } };
    // The outbox hold, if any: one point read of its marker, which says how far each held target is behind.
    const marker = await app.outbox.holds.read(orderId);
    return { status: 200, jsonBody: { ...view, ...(marker && { hold: holdView(marker.doc) }) } };
  } catch (error) {
    return unavailableOrRethrow(error);
  }
}

/** The function: `GET /api/orders/{orderId}` with a function key. */
export const getOrderFunction = defineFunction('http', 'getOrder', getOrder, {
  route: 'orders/{orderId}',
  methods: ['GET'],
  authLevel: 'function',
});
