/**
 * The pure part of the relay: what a change batch of `orders` holds for it. The change feed gives every changed
 * document of the container (order documents, inbox, applied and parked records, outbox records, hold markers and
 * held records) at its latest version, in modification order within a logical partition; only outbox records and
 * hold markers matter here.
 */
import type { OutboxHold } from '../documents/outboxHold.js';
import type { OutboxRecord } from '../documents/outboxRecord.js';
import { withoutSystemProperties } from '../documents/systemProperties.js';
import type { Stored } from '../ports/orderStore.js';

/** One order's part of a change batch. */
export interface OrderRelayWork {
  orderId: string;
  /** Its outbox records, ascending by sequence, each id once. */
  records: OutboxRecord[];
}

/** What a change batch holds for the relay. */
export interface RelayBatch {
  /** Orders with outbox records, in the order the batch first names them. */
  orders: OrderRelayWork[];
  /** Hold markers the batch carries (written by this relay or another instance), with their ETags. */
  holds: Stored<OutboxHold>[];
}

/** Splits a change batch into per-order outbox work and the hold markers it carries; every other document is ignored. */
export function planRelayBatch(changes: readonly unknown[]): RelayBatch {
  const byOrder = new Map<string, Map<string, OutboxRecord>>();
  const holds: Stored<OutboxHold>[] = [];
  for (const change of changes) {
    if (typeof change !== 'object' || change === null) continue;
    const doc = change as { docType?: unknown; orderId?: unknown; _etag?: unknown };
    if (typeof doc.orderId !== 'string') continue;
    if (doc.docType === 'outbox-hold') {
      holds.push({
        doc: withoutSystemProperties<OutboxHold>(change),
        etag: typeof doc._etag === 'string' ? doc._etag : '',
      });
    } else if (doc.docType === 'outbox') {
      const record = withoutSystemProperties(change) as unknown as OutboxRecord;
      let records = byOrder.get(record.orderId);
      if (records === undefined) byOrder.set(record.orderId, (records = new Map()));
      records.set(record.id, record);
    }
  }
  const orders = [...byOrder].map(([orderId, records]) => ({
    orderId,
    records: [...records.values()].sort((a, b) => a.sequence - b.sequence),
  }));
  return { orders, holds };
}
