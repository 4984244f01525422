/**
 * A consumer of `order-events` (its subscription `all`) for the benchmark: takes every message (receive-and-delete, several sessions at a
 * time, one client) and keeps, per `messageId`, when the broker enqueued it — the end of the relay's path. Copies
 * of a `messageId` (a replayed batch past duplicate detection) are counted, not kept twice.
 */
import { ServiceBusClient, isServiceBusError, type ServiceBusSessionReceiver } from '@azure/service-bus';
import { ALL_EVENTS_SUBSCRIPTION, ORDER_EVENTS_TOPIC, orderEventKey, orderEventSource } from '../../src/core/index.js';

/** The `messageId` of an entry's event on `order-events`: its key, derived from the order and the entry. */
export function eventKeyOf(entry: { orderId: string; entryId: string }): string {
  return orderEventKey(orderEventSource(entry.orderId), entry.entryId);
}

/** What the consumer has taken so far. */
interface OrderEventsSeen {
  /** Broker enqueue time (epoch ms) of each `messageId`'s first copy. */
  readonly enqueuedAt: Map<string, number>;
  /** Body size in bytes (its JSON in UTF-8) of each `messageId`'s first copy. */
  readonly bodyBytes: Map<string, number>;
  /** Copies beyond the first. */
  duplicates: number;
}

/** A running consumer. */
export interface OrderEventsConsumer {
  readonly seen: OrderEventsSeen;
  /** Resolves once every id in `ids` was taken; rejects after `timeoutMs`, naming how many were. */
  waitFor(ids: readonly string[], timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

const WORKERS = 8;

/** Starts taking `order-events` messages from subscription `all` (one downstream) until closed. */
export function consumeOrderEvents(connectionString: string): OrderEventsConsumer {
  const client = new ServiceBusClient(connectionString);
  const seen: OrderEventsSeen = { enqueuedAt: new Map(), bodyBytes: new Map(), duplicates: 0 };
  let closed = false;
  const worker = async (): Promise<void> => {
    while (!closed) {
      let receiver: ServiceBusSessionReceiver | undefined;
      try {
        receiver = await client.acceptNextSession(ORDER_EVENTS_TOPIC, ALL_EVENTS_SUBSCRIPTION, {
          receiveMode: 'receiveAndDelete',
          maxAutoLockRenewalDurationInMs: 0,
        });
        for (;;) {
          const messages = await receiver.receiveMessages(100, { maxWaitTimeInMs: 100 });
          if (messages.length === 0) break;
          for (const m of messages) {
            const id = String(m.messageId);
            if (seen.enqueuedAt.has(id)) seen.duplicates += 1;
            else {
              seen.enqueuedAt.set(id, m.enqueuedTimeUtc?.getTime() ?? Date.now());
              seen.bodyBytes.set(id, bodyBytes(m.body));
            }
          }
        }
      } catch (error) {
        // No session within the accept timeout (look again at once), or anything else (look again shortly).
        const timedOut =
          isServiceBusError(error) && (error.code === 'ServiceTimeout' || error.code === 'SessionCannotBeLocked');
        if (!closed && !timedOut) await new Promise((resolve) => setTimeout(resolve, 50));
      } finally {
        await receiver?.close().catch(() => undefined);
      }
    }
  };
  const workers = Array.from({ length: WORKERS }, () => worker());
  return {
    seen,
    async waitFor(ids, timeoutMs) {
      const deadline = performance.now() + timeoutMs;
      while (ids.some((id) => !seen.enqueuedAt.has(id))) {
        if (performance.now() > deadline)
          throw new Error(
            `order-events: ${ids.filter((id) => seen.enqueuedAt.has(id)).length}/${ids.length} events after ${timeoutMs} ms`,
          );
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async close() {
      closed = true;
      // A worker's pending acceptNextSession only gives up at its operation timeout (60 s), even after the client
      // closed: the workers are left to end on their own rather than awaited.
      void Promise.allSettled(workers);
      await client.close();
    },
  };
}

/** A message body's size as sent: a binary or text body as is, a decoded JSON body as its JSON in UTF-8. */
function bodyBytes(body: unknown): number {
  if (Buffer.isBuffer(body) || body instanceof Uint8Array) return body.byteLength;
  if (typeof body === 'string') return Buffer.byteLength(body);
  return Buffer.byteLength(JSON.stringify(body) ?? '');
}
