/**
 * Order events as CloudEvents 1.0 in structured mode (docs/contracts.md): built once, when the
 * entry's outbox record is committed, and stored in it, so every replay sends identical bytes. (`source`, `id`)
 * identifies an event; since an `entryId` is unique per order only, the key every target dedupes on is derived from
 * both, never from the `entryId` alone.
 */
import { createHash } from 'node:crypto';
import { CloudEvent } from 'cloudevents';
import type { BusinessState } from '../order/orderView.js';

/** The CloudEvents `type` of an applied entry. */
const ORDER_EVENT_TYPE = 'convoy.order.entry-applied';
/** The media type of a structured-mode CloudEvent, on `order-events` (`contentType`) and on the webhook. */
export const CLOUDEVENTS_JSON = 'application/cloudevents+json';

/** `data` of an order event: absolute state, so consumers can apply it as is. */
interface OrderEventData {
  orderId: string;
  sequence: number;
  entryId: string;
  /** The order's business state right after this entry (the GET view without `parked` and `rejected`). */
  order: BusinessState;
}

/** An order event as it travels: the CloudEvents attributes and `data`, one JSON object. */
export interface OrderCloudEvent {
  specversion: '1.0';
  /** The `entryId`. */
  id: string;
  /** `/orders/` + the orderId percent-encoded as a URI path segment. */
  source: string;
  type: typeof ORDER_EVENT_TYPE;
  /** The outbox record's `committedAt`. */
  time: string;
  datacontenttype: 'application/json';
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

/** What an order event is made of. */
interface OrderEventInput {
  entryId: string;
  sequence: number;
  order: BusinessState;
  /** ISO time of the commit that applied the entry. */
  committedAt: string;
  traceparent: string | undefined;
}

/**
 * The CloudEvent of an applied entry and its key, validated by the CloudEvents SDK. Every attribute is given, so the
 * SDK invents nothing (no `id`, no `time`): the same entry always makes the same event.
 */
export function orderCloudEvent(input: OrderEventInput): { event: OrderCloudEvent; key: string } {
  const { order } = input;
  const source = orderEventSource(order.orderId);
  const event = new CloudEvent<OrderEventData>({
    specversion: '1.0',
    id: input.entryId,
    source,
    type: ORDER_EVENT_TYPE,
    time: input.committedAt,
    datacontenttype: 'application/json',
    data: { orderId: order.orderId, sequence: input.sequence, entryId: input.entryId, order },
    ...(input.traceparent !== undefined && { traceparent: input.traceparent }),
  });
  return { event: event.toJSON() as unknown as OrderCloudEvent, key: orderEventKey(source, input.entryId) };
}
