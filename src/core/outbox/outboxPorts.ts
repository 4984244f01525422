/**
 * What the outbox relay needs from the outside: the delivery targets (Service Bus `order-events`, an optional
 * webhook), the holds (Cosmos DB `orders`) and a place for its counts. Adapters expose primitives and translate
 * their failures into {@link OutboxDeliveryError}s; the relay decides.
 */
import type { OutboxHold } from '../documents/outboxHold.js';
import type { Stored } from '../ports/orderStore.js';
import type { OrderEventMessage } from './orderEvent.js';

/** The event being delivered: the message plus the trace context it continues. */
export interface OutboundOrderEvent extends OrderEventMessage {
  /** W3C `traceparent` of the entry that produced it, when known. */
  traceparent: string | undefined;
}

/** `order-events`: takes one order's events, in sequence order, in as few batch sends as they fit in. */
export interface OrderEventSender {
  /** Resolves when every event was sent; rejects on the first failed send (earlier batches may have gone). */
  send(events: readonly OutboundOrderEvent[], signal: AbortSignal): Promise<void>;
}

/** The webhook: one POST per event with `Idempotency-Key` = its `messageId`. */
export interface OrderEventWebhook {
  /** Resolves on a 2xx answer; rejects otherwise. */
  post(event: OutboundOrderEvent, signal: AbortSignal): Promise<void>;
}

/** Outcome of a conditional hold write that did not land. */
export type HoldWriteLost = 'changed' | 'missing';

/** The holds in the `orders` container (partition `/orderId`, `id = outbox-hold:<orderId>`). */
export interface OutboxHoldStore {
  /** The order's hold, or `undefined` (one point read). */
  read(orderId: string): Promise<Stored<OutboxHold> | undefined>;
  /** Creates the hold; resolves with its ETag, or `'changed'` when one exists already (409). */
  create(hold: OutboxHold): Promise<string | 'changed'>;
  /** Replaces the hold if it still has `etag`: its new ETag, `'changed'` (412) or `'missing'` (404). */
  replace(hold: OutboxHold, etag: string): Promise<string | HoldWriteLost>;
  /** Deletes the hold if it still has `etag`: `'deleted'`, `'changed'` (412) or `'missing'` (404). */
  delete(orderId: string, etag: string): Promise<'deleted' | HoldWriteLost>;
}

/** Where the relay reports what it did, for metrics. */
export interface OutboxObserver {
  /** Records that reached every target. */
  delivered(records: number): void;
  /** An attempt at a target failed (retried within the budget, or the last one). */
  attemptFailed(target: string): void;
  /** A hold was written for an order. */
  held(orderId: string): void;
}

/** An observer that drops everything. */
export const silentOutboxObserver: OutboxObserver = {
  delivered() {},
  attemptFailed() {},
  held() {},
};
