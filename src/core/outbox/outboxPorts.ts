/**
 * What the outbox dispatcher needs from the outside: the records (Cosmos DB), the delivery targets (Service Bus
 * `order-events`, an optional webhook) and a place for its gauges. Adapters expose primitives; the dispatcher
 * and the pure decisions beside it decide.
 */
import type { Stored } from '../ports/orderStore.js';
import type { OrderEventMessage } from './orderEvent.js';
import type { OutboxSummary } from './outboxOrdering.js';
import type { DeliveryReceipt, OutboxDispatchRecord } from './outboxRecordState.js';

/** How many outbox records are in each open status. */
export interface OutboxCounts {
  pending: number;
  inProgress: number;
  failed: number;
}

/** Outbox records in the `orders` container (partition key `/orderId`). */
export interface OutboxStore {
  /** The order's records that are not `completed`, ascending by sequence (one partition). */
  openRecords(orderId: string): Promise<Stored<OutboxDispatchRecord>[]>;
  /**
   * Writes `record` over the stored one if it still has `etag`. Resolves with the new ETag, or `undefined` when
   * another writer got there first (412) or the record is gone (404): the caller lost and stops.
   */
  replace(record: OutboxDispatchRecord, etag: string): Promise<string | undefined>;
  /** Summaries of open records across all orders, ordered by `orderId`, `sequence`; at most `limit`. */
  openSummaries(limit: number): Promise<OutboxSummary[]>;
  /** Counts by open status, across all orders. */
  countOpen(): Promise<OutboxCounts>;
}

/** The event being delivered: the message plus the trace context it continues. */
export interface OutboundOrderEvent extends OrderEventMessage {
  /** W3C `traceparent` of the entry that produced it, when known. */
  traceparent: string | undefined;
}

/** One delivery target. Resolves when the target took the event; rejects (any error) when it did not. */
export interface OrderEventTarget {
  /** Stable name, stored in `delivered`/`result` (e.g. `order-events`, `webhook`). */
  readonly name: string;
  deliver(event: OutboundOrderEvent, signal: AbortSignal): Promise<DeliveryReceipt>;
}

/** Where the dispatcher reports what it did, for metrics. */
export interface OutboxObserver {
  delivered(record: OutboxDispatchRecord): void;
  attemptFailed(record: OutboxDispatchRecord, exhausted: boolean): void;
  counts(counts: OutboxCounts): void;
}

/** An observer that drops everything. */
export const silentOutboxObserver: OutboxObserver = {
  delivered() {},
  attemptFailed() {},
  counts() {},
};
