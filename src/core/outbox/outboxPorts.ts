/**
 * What the outbox relay needs from the outside: the delivery targets (Service Bus `order-events`, an optional
 * webhook), the holds (Cosmos DB `orders`) and a place for its counts. Adapters expose primitives and translate
 * their failures into {@link OutboxDeliveryError}s; the relay decides.
 */
import type { OutboxDiscardRecord } from '../documents/outboxDiscardRecord.js';
import type { StoredEvent } from '../documents/entryRecord.js';
import type { OutboxHold } from '../documents/outboxHold.js';
import type { EntryType } from '../entryTypes/registry.js';
import type { Stored } from '../ports/orderStore.js';
import type { CLOUDEVENTS_JSON, OrderCloudEvent, OrderEventType } from './orderCloudEvent.js';

/** The event being delivered: the `order-events` message as a plain object (the adapter adds the trace context). */
export interface OutboundOrderEvent {
  /** The event's key: the idempotency key every layer downstream dedupes on. */
  messageId: string;
  /** The `orderId`: the subscriptions are session-enabled, so each order's events stay in sequence order. */
  sessionId: string;
  /** The CloudEvents `type`: a subscription's SQL filter selects events on it (`sys.Label`). */
  subject: OrderEventType;
  /** The `ledgerId` of the entry. */
  correlationId: string | undefined;
  contentType: typeof CLOUDEVENTS_JSON;
  applicationProperties: { sequence: number; type: EntryType };
  /** The structured CloudEvent as committed. Sent as an object. */
  body: OrderCloudEvent;
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

/**
 * What became of a conditional write of a marker: its new ETag, or `lost` — the condition failed (the marker to
 * create exists, the one to replace or delete changed or is gone): read it again and decide again. A store failure
 * throws a `StoreError`, as the order store's reads do.
 */
export type HoldWrite = { kind: 'written'; etag: string } | { kind: 'lost' };

/**
 * The holds in the `orders` container (partition `/orderId`): the markers (`outbox-hold:<orderId>`), written under
 * their ETags, the order's stored events they point into, and the audit records of discards.
 */
export interface OutboxHoldStore {
  /** The order's marker, or `undefined` (one point read). */
  read(orderId: string): Promise<Stored<OutboxHold> | undefined>;
  /** Creates `marker` (`etag` undefined) or replaces it if it still has `etag`. */
  write(marker: OutboxHold, etag: string | undefined): Promise<HoldWrite>;
  /** Deletes the order's marker if it still has `etag`. */
  end(orderId: string, etag: string): Promise<HoldWrite>;
  /**
   * The order's stored events (applied entry records) with `after` < sequence ≤ `through`, ascending, at most
   * `max` of them (one partition query).
   */
  storedEvents(orderId: string, after: number, through: number, max: number): Promise<StoredEvent[]>;
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
