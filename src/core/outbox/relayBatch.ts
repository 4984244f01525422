/**
 * The pure part of the relay: what a change batch of `orders` holds for it. The change feed gives every changed
 * document of the container (order documents, entry records, transactions, hold markers and held records) at its
 * latest version, in modification order within a logical partition; only the records of applied entries (their
 * stored events) and hold markers matter here. An applied entry's record never changes after its commit, so each is
 * seen whole; a parked or rejected record passes by until the batch that applies its entry replaces it.
 */
import { EntryStatus, type StoredEvent } from '../documents/entryRecord.js';
import type { OutboxHold } from '../documents/outboxHold.js';
import { withoutSystemProperties } from '../documents/systemProperties.js';
import type { Stored } from '../ports/orderStore.js';

/** One order's part of a change batch. */
export interface OrderRelayWork {
  orderId: string;
  /** Its stored events, ascending by sequence, each id once. */
  records: StoredEvent[];
}

/** What a change batch holds for the relay. */
export interface RelayBatch {
  /** Orders with stored events, in the order the batch first names them. */
  orders: OrderRelayWork[];
  /** Hold markers the batch carries (written by this relay or another instance), with their ETags. */
  holds: Stored<OutboxHold>[];
}

/** Splits a change batch into per-order relay work and the hold markers it carries; every other document is ignored. */
export function planRelayBatch(changes: readonly unknown[]): RelayBatch {
  const byOrder = new Map<string, Map<string, StoredEvent>>();
  const holds: Stored<OutboxHold>[] = [];
  for (const change of changes) {
    if (typeof change !== 'object' || change === null) continue;
    const doc = change as { docType?: unknown; status?: unknown; orderId?: unknown; _etag?: unknown };
    if (typeof doc.orderId !== 'string') continue;
    if (doc.docType === 'outbox-hold') {
      holds.push({
        doc: withoutSystemProperties<OutboxHold>(change),
        etag: typeof doc._etag === 'string' ? doc._etag : '',
      });
    } else if (doc.docType === 'entry' && doc.status === EntryStatus.Applied) {
      const record = withoutSystemProperties(change) as unknown as StoredEvent;
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
