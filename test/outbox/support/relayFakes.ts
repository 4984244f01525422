import type { AppliedEntryRecord } from '../../../src/core/documents/entryRecord.js';
import { orderCloudEvent, orderEventKey, orderEventSource } from '../../../src/core/outbox/orderCloudEvent.js';
import { OutboxDeliveryError, OutboxErrorCode } from '../../../src/core/outbox/outboxErrors.js';
import type { OrderEventSender, OrderEventWebhook, OutboundOrderEvent } from '../../../src/core/outbox/outboxPorts.js';

/**
 * An applied entry's record, its stored event, as the processor writes it (`<orderId>-<sequence>` as entryId);
 * `padding` grows its state.
 */
export function outboxRecordOf(orderId: string, sequence: number, padding = 0): AppliedEntryRecord {
  const entryId = `${orderId}-${sequence}`;
  const committedAt = '2025-01-01T00:00:00.000Z';
  const customerId = padding > 0 ? `c-${'x'.repeat(padding)}` : 'c-1';
  const order = {
    status: 'open' as const,
    customerId,
    currency: 'EUR',
    lastSequence: sequence,
    total: 0,
    transactionCount: sequence - 1,
  };
  const type = sequence === 1 ? ('OrderCreated' as const) : ('TransactionAdded' as const);
  const change = sequence === 1 ? { customerId, currency: 'EUR' } : { transactionId: `t-${sequence}`, amount: 0 };
  return {
    id: `entry:order-processor:${entryId}`,
    docType: 'entry',
    status: 'applied',
    orderId,
    entryId,
    sequence,
    requestHash: 'a'.repeat(64),
    type,
    correlationId: 'L-1',
    committedAt,
    ...orderCloudEvent({ orderId, entryId, sequence, type, change, order, committedAt, traceparent: undefined }),
  };
}

/** The key the targets know the record of `orderId`'s `sequence` by (see {@link outboxRecordOf}). */
export function keyOf(orderId: string, sequence: number): string {
  return orderEventKey(orderEventSource(orderId), `${orderId}-${sequence}`);
}

/** A change-feed copy of a document: the system properties Cosmos adds. */
export function asChange<T extends object>(doc: T, lsn = 1): T & { _etag: string; _lsn: number; _ts: number } {
  return { ...doc, _etag: `"feed-${lsn}"`, _lsn: lsn, _ts: 1 };
}

/** How a fake target answers one order: `reject` fails it, `transport` fails it as the relay's own infrastructure. */
export type FakeFailure = 'reject' | 'transport';

/** An `order-events` sender that records each send, failing the orders it is told to. */
export class FakeSender implements OrderEventSender {
  /** Each send, as the message ids it carried. */
  readonly sends: string[][] = [];
  /** Every message id sent, with its order. */
  private readonly sent: { orderId: string; id: string }[] = [];
  /** Failures by order, consumed one per attempt (`Infinity` copies = always). */
  readonly failures = new Map<string, FakeFailure[]>();

  failFor(orderId: string, failure: FakeFailure, times = Number.POSITIVE_INFINITY): void {
    this.failures.set(
      orderId,
      Array.from({ length: Math.min(times, 1000) }, () => failure),
    );
  }

  async send(events: readonly OutboundOrderEvent[]): Promise<void> {
    const failure = this.failures.get(events[0]!.sessionId)?.shift();
    if (failure === 'transport')
      throw new OutboxDeliveryError(OutboxErrorCode.TransportFailed, 'order-events unreachable');
    if (failure === 'reject')
      throw new OutboxDeliveryError(OutboxErrorCode.TargetRejected, 'order-events refused the batch');
    this.sends.push(events.map((e) => e.messageId));
    this.sent.push(...events.map((e) => ({ orderId: e.sessionId, id: e.messageId })));
  }

  /** Message ids sent, in order, for one order. */
  sentFor(orderId: string): string[] {
    return this.sent.filter((s) => s.orderId === orderId).map((s) => s.id);
  }
}

/** A webhook that records each POST's `Idempotency-Key`, failing the orders it is told to. */
export class FakeWebhook implements OrderEventWebhook {
  readonly posts: string[] = [];
  readonly failures = new Map<string, number>();
  /** Runs after each POST the webhook took (a test races another writer there). */
  afterPost: ((event: OutboundOrderEvent) => Promise<void>) | undefined;
  /** Every POST's key, with its order. */
  private readonly posted: { orderId: string; id: string }[] = [];

  /** Fails every POST of `orderId` from `fromSequence` on, `times` times. */
  failFor(orderId: string, times = Number.POSITIVE_INFINITY, fromSequence = 1): void {
    this.failures.set(`${orderId}@${fromSequence}`, times);
  }

  async post(event: OutboundOrderEvent): Promise<void> {
    for (const [key, left] of this.failures) {
      const [orderId, from] = key.split('@') as [string, string];
      if (orderId === event.sessionId && event.applicationProperties.sequence >= Number(from) && left > 0) {
        this.failures.set(key, left - 1);
        throw new OutboxDeliveryError(OutboxErrorCode.TargetRejected, 'webhook answered HTTP 503');
      }
    }
    this.posts.push(event.messageId);
    this.posted.push({ orderId: event.sessionId, id: event.messageId });
    await this.afterPost?.(event);
  }

  postedFor(orderId: string): string[] {
    return this.posted.filter((p) => p.orderId === orderId).map((p) => p.id);
  }
}
