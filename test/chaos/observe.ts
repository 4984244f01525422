import type { Container } from '@azure/cosmos';
import type { ServiceBusClient } from '@azure/service-bus';
import {
  ALL_EVENTS_SUBSCRIPTION,
  ORDER_EVENTS_TOPIC,
  orderEventKey,
  orderEventSource,
  type OrderView,
} from '../../src/core/index.js';
import type { OrderEventData } from '../../src/core/outbox/orderCloudEvent.js';
import { foundDeadLetter, readOrders as readOrdersVia } from '@ledger-convoy/cli';
import type { FoundDeadLetter } from '@ledger-convoy/cli';
import { FunctionApi } from '@ledger-convoy/cli';
import { messageIdText } from '@ledger-convoy/cli';
import { peekAll, subscriptionPath } from '@ledger-convoy/cli';

/** Where the chaos run reads the events: subscription `all` of the `order-events` topic, as a downstream would. */
const ALL_EVENTS = subscriptionPath(ORDER_EVENTS_TOPIC, ALL_EVENTS_SUBSCRIPTION);

/** An `order-events` message as peeked on subscription `all`. */
export interface SeenEvent {
  messageId: string;
  sessionId: string | undefined;
  /** What consumers dedupe on: the CloudEvent's (`source`, `id`), as {@link eventIdentity} spells it. */
  key: string;
  /** The key a correct relay gives this event (`orderEventKey(source, id)`), to compare with `messageId`. */
  expectedMessageId: string;
  sequence: number | undefined;
  /** The event's `data`: what the entry changed and the order's summary after it. */
  data: OrderEventData | undefined;
}

/** The (`source`, `id`) of an order's event for an entry, as one string: unique across orders, unlike an entryId. */
export function eventIdentity(orderId: string, entryId: string): string {
  return `${orderEventSource(orderId)} ${entryId}`;
}

/** What an order event's body (a structured CloudEvent) says. */
export function readEventBody(body: unknown): {
  key: string;
  expectedMessageId: string;
  orderId: string | undefined;
  sequence: number | undefined;
  data: OrderEventData | undefined;
} {
  const value = parseBody(body);
  const cloudEvent = value?.specversion === '1.0' && typeof value.data === 'object' && value.data !== null;
  const data = cloudEvent ? (value.data as Record<string, unknown>) : undefined;
  const orderId = typeof data?.orderId === 'string' ? data.orderId : undefined;
  const source = cloudEvent ? String(value.source) : '';
  const id = cloudEvent ? String(value.id) : '';
  return {
    key: `${source} ${id}`,
    expectedMessageId: orderEventKey(source, id),
    orderId,
    sequence: typeof data?.sequence === 'number' ? data.sequence : undefined,
    data: data as OrderEventData | undefined,
  };
}

/** The documents of the container the checks read (everything but order and transaction documents). */
export interface StoredRow {
  id: string;
  docType: 'entry' | 'outbox-hold';
  orderId: string;
  entryId?: string;
  sequence?: number;
  /** An entry's record: `applied`, `parked` or `rejected`. */
  status?: string;
  committedAt?: string;
  /** An applied entry's record: whether its stored event and key can be read. */
  eventReadable?: boolean;
}

/** Everything the invariants look at, read once the system has settled. */
export interface Observation {
  orders: Map<string, OrderView | undefined>;
  /** Dead letters of `orders` and `ledger`, keyed as the CLI keys them. */
  deadLetters: FoundDeadLetter[];
  /** Dead letters of subscription `all` of `order-events` (there should be none). */
  eventDeadLetters: number;
  events: SeenEvent[];
  rows: StoredRow[];
  /** Active messages still on `ledger` and `orders`. */
  backlog: number;
}

/** Reads orders over HTTP (`concurrency` at a time) into `into`; `ids` only. */
export async function readOrders(
  baseUrl: string,
  ids: readonly string[],
  into: Map<string, OrderView | undefined>,
  concurrency = 8,
): Promise<void> {
  await readOrdersVia(new FunctionApi({ httpBaseUrl: baseUrl, functionKey: undefined }), ids, into, concurrency);
}

/** Dead letters of `orders` and `ledger`, plus the number on subscription `all` of `order-events`. */
export async function readDeadLetters(
  client: ServiceBusClient,
): Promise<{ deadLetters: FoundDeadLetter[]; eventDeadLetters: number }> {
  const [orders, ledger, events] = await Promise.all([
    peekAll(client, 'orders', 'deadLetter'),
    peekAll(client, 'ledger', 'deadLetter'),
    peekAll(client, ALL_EVENTS, 'deadLetter'),
  ]);
  return {
    deadLetters: [
      ...orders.map((m) => foundDeadLetter('orders', m)),
      ...ledger.map((m) => foundDeadLetter('ledger', m)),
    ],
    eventDeadLetters: events.length,
  };
}

/**
 * Every message on subscription `all` of `order-events`, in its order (sequence numbers, i.e. each session's order
 * too).
 */
export async function readEvents(client: ServiceBusClient, limit: number): Promise<SeenEvent[]> {
  const messages = await peekAll(client, ALL_EVENTS, undefined, limit);
  return messages.map((m) => {
    const { key, expectedMessageId, sequence, data } = readEventBody(m.body);
    return { messageId: messageIdText(m.messageId), sessionId: m.sessionId, key, expectedMessageId, sequence, data };
  });
}

/** Active messages left on `ledger` and `orders` (only zero matters). */
export async function readBacklog(client: ServiceBusClient): Promise<number> {
  const counts = await Promise.all(
    ['ledger', 'orders'].map(async (queue) => (await peekAll(client, queue, undefined, 5)).length),
  );
  return counts.reduce((a, b) => a + b, 0);
}

/** The entries' records (applied with their events, parked, rejected) and hold markers of every order. */
export async function readRows(container: Container): Promise<StoredRow[]> {
  const query =
    'SELECT c.id, c.docType, c.orderId, c.entryId, c.sequence, c.status, c.committedAt, ' +
    '(IS_DEFINED(c.event) AND IS_DEFINED(c.key)) AS eventReadable FROM c ' +
    "WHERE c.docType = 'entry' OR c.docType = 'outbox-hold'";
  const { resources } = await container.items.query<StoredRow>(query, { maxItemCount: 5_000 }).fetchAll();
  return resources;
}

function parseBody(body: unknown): Record<string, unknown> | undefined {
  let value = body;
  if (Buffer.isBuffer(value)) value = value.toString('utf8');
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return undefined;
    }
  }
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}
