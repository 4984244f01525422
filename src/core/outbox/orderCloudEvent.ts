/**
 * Order events as CloudEvents 1.0 in structured mode (docs/contracts.md): built once, when the
 * entry's record is committed, and stored in it, so every replay sends identical bytes. (`source`, `id`)
 * identifies an event; since an `entryId` is unique per order only, the key every target dedupes on is derived from
 * both, never from the `entryId` alone.
 */
import { createHash } from 'node:crypto';
import { CloudEvent } from 'cloudevents';
import type { OrderSummary } from '../order/orderView.js';
import { entryTypeOf, type EntryChange, type EntryType } from '../entryTypes/registry.js';

/**
 * What happened to the order, one per entry type (its module's `eventType`). It is also the Service Bus `subject`
 * (`sys.Label`), so a subscription selects the events it wants with a SQL filter.
 */
export type OrderEventType = `convoy.order.${string}`;
/**
 * The CloudEvents `dataschema`: names the version of `data`, so a later change to `data` can be published beside
 * this one (a new schema, a new subscription filter) rather than in place of it.
 */
const ORDER_EVENT_DATA_SCHEMA = 'urn:ledger-convoy:order-event-data:v1';
/** The media type of a structured-mode CloudEvent, on `order-events` (`contentType`) and on the webhook. */
export const CLOUDEVENTS_JSON = 'application/cloudevents+json';

/**
 * `data` of an order event: what the entry changed, and the order's summary right after it. Constant in size
 * whatever the order's length; a consumer folding `change` in sequence order holds the whole order
 * (docs/architecture.md, "Order events").
 */
export interface OrderEventData {
  orderId: string;
  sequence: number;
  entryId: string;
  /** The entry's type. */
  type: EntryType;
  /** What the entry did (see `EntryChange`). */
  change: EntryChange;
  /** The order's summary right after this entry (no list of transactions). */
  order: OrderSummary;
}

/** An order event as it travels: the CloudEvents attributes and `data`, one JSON object. */
export interface OrderCloudEvent {
  specversion: '1.0';
  /** The `entryId`. */
  id: string;
  /** `/orders/` + the orderId percent-encoded as a URI path segment. */
  source: string;
  /** What happened to the order, one per entry type ({@link OrderEventType}). */
  type: OrderEventType;
  /** The entry record's `committedAt`. */
  time: string;
  datacontenttype: 'application/json';
  /** The version of `data` ({@link ORDER_EVENT_DATA_SCHEMA}). */
  dataschema: typeof ORDER_EVENT_DATA_SCHEMA;
  /** The entry's W3C trace context (the CloudEvents distributed-tracing extension), when it carried one. */
  traceparent?: string;
  data: OrderEventData;
}

/** The event's `source`: `/orders/<orderId>`, the orderId encoded as `encodeURIComponent` encodes a path segment. */
export function orderEventSource(orderId: string): string {
  return `/orders/${encodeURIComponent(orderId)}`;
}

/**
 * The event's key: `evt-` and the first 32 lowercase hex digits of SHA-256 over the UTF-8 of `source + "\n" + id`.
 * Stable, unique per order and entry, 36 characters (within Service Bus's 128 for a `messageId`).
 */
export function orderEventKey(source: string, id: string): string {
  return `evt-${createHash('sha256').update(`${source}\n${id}`, 'utf8').digest('hex').slice(0, 32)}`;
}

/** What an order event is made of: its `data`, when it was committed, and the entry's trace context. */
interface OrderEventInput extends OrderEventData {
  /** ISO time of the commit that applied the entry. */
  committedAt: string;
  traceparent: string | undefined;
}

/**
 * The CloudEvent of an applied entry and its key, validated by the CloudEvents SDK. Every attribute is given, so the
 * SDK invents nothing (no `id`, no `time`): the same entry always makes the same event.
 */
export function orderCloudEvent(input: OrderEventInput): { event: OrderCloudEvent; key: string } {
  const { orderId, order } = input;
  const source = orderEventSource(orderId);
  const event = new CloudEvent<OrderEventData>({
    specversion: '1.0',
    id: input.entryId,
    source,
    type: entryTypeOf(input.type)!.eventType,
    time: input.committedAt,
    datacontenttype: 'application/json',
    dataschema: ORDER_EVENT_DATA_SCHEMA,
    data: { orderId, sequence: input.sequence, entryId: input.entryId, type: input.type, change: input.change, order },
    ...(input.traceparent !== undefined && { traceparent: input.traceparent }),
  });
  return { event: event.toJSON() as unknown as OrderCloudEvent, key: orderEventKey(source, input.entryId) };
}
