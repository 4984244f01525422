/**
 * What the outbox relay needs from the outside: the delivery targets (Service Bus `order-events`, an optional
 * webhook), the holds (Cosmos DB `orders`) and a place for its counts. Adapters expose primitives and translate
 * their failures into {@link OutboxDeliveryError}s; the relay decides.
 */
import type { OutboxDiscardRecord } from '../documents/outboxDiscardRecord.js';
import type { OutboxHeldRecord } from '../documents/outboxHeldRecord.js';
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

/**
 * Outcome of {@link OutboxHoldStore.append}: the marker's new ETag, or why the batch wrote nothing — `exists` (the
 * marker to create is there already, 409), `changed` (412), `missing` (the marker to replace is gone, 404),
 * `alreadyHeld` (the held record exists, 409: a replay).
 */
export type HoldAppendResult =
  { kind: 'written'; etag: string } | { kind: 'exists' | 'changed' | 'missing' | 'alreadyHeld' };

/**
 * The holds in the `orders` container (partition `/orderId`): the markers (`outbox-hold:<orderId>`), the held records
 * (`outbox-held:<entryId>`) and the audit records of discards. Every write of a marker is conditional on its ETag.
 */
export interface OutboxHoldStore {
  /** The order's marker, or `undefined` (one point read). */
  read(orderId: string): Promise<Stored<OutboxHold> | undefined>;
  /**
   * One transactional batch in the order's partition: creates `record` and creates `marker` (`etag` undefined) or
   * replaces it under `etag`.
   */
  append(marker: OutboxHold, etag: string | undefined, record: OutboxHeldRecord): Promise<HoldAppendResult>;
  /** Replaces the marker if it still has `etag`: its new ETag, `'changed'` (412) or `'missing'` (404). */
  replace(marker: OutboxHold, etag: string): Promise<string | HoldWriteLost>;
  /** Deletes the marker if it still has `etag`: `'deleted'`, `'changed'` (412) or `'missing'` (404). */
  delete(orderId: string, etag: string): Promise<'deleted' | HoldWriteLost>;
  /** The order's held records, ascending by sequence. */
  heldRecords(orderId: string): Promise<OutboxHeldRecord[]>;
  /** Writes a held record whatever is there: a release that delivered it to some targets leaves it fewer pending. */
  putHeld(record: OutboxHeldRecord): Promise<void>;
  /** Deletes a held record; one already gone is no error. */
  deleteHeld(orderId: string, id: string): Promise<void>;
  /** Every marker (one cross-partition query), with its ETag. */
  list(): Promise<Stored<OutboxHold>[]>;
  /** Creates the audit record of a discard. */
  recordDiscard(record: OutboxDiscardRecord): Promise<void>;
}

/** Where the relay reports what it did, for metrics. */
export interface OutboxObserver {
  /** Records that reached every target. */
  delivered(records: number): void;
  /** An attempt at a target failed (retried within the budget, or the last one). */
  attemptFailed(target: string): void;
  /** A hold was created for an order. */
  held(orderId: string): void;
}

/** An observer that drops everything. */
export const silentOutboxObserver: OutboxObserver = {
  delivered() {},
  attemptFailed() {},
  held() {},
};
