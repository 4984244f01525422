/**
 * The pure part of the relay: what a change batch of `orders` holds for it, and how holds grow. The change feed
 * gives every changed document of the container (order documents, inbox, applied and parked records, outbox
 * records, holds) at its latest version, in modification order within a logical partition; only outbox records
 * and holds matter here.
 */
import { outboxHoldId } from '../documents/documentIds.js';
import { OutboxTarget, type HeldOutboxRecord, type OutboxHold } from '../documents/outboxHold.js';
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
  /** Holds the batch carries (written by this relay or another instance), with their ETags. */
  holds: Stored<OutboxHold>[];
}

/** Splits a change batch into per-order outbox work and the holds it carries; every other document is ignored. */
export function planRelayBatch(changes: readonly unknown[]): RelayBatch {
  const byOrder = new Map<string, Map<string, OutboxRecord>>();
  const holds: Stored<OutboxHold>[] = [];
  for (const change of changes) {
    if (typeof change !== 'object' || change === null) continue;
    const doc = change as { docType?: unknown; orderId?: unknown; _etag?: unknown };
    if (typeof doc.orderId !== 'string') continue;
    if (doc.docType === 'outbox-hold') {
      holds.push({ doc: withoutSystemProperties(change) as unknown as OutboxHold, etag: typeof doc._etag === 'string' ? doc._etag : '' });
    } else if (doc.docType === 'outbox') {
      const record = withoutSystemProperties(change) as unknown as OutboxRecord;
      let records = byOrder.get(record.orderId);
      if (records === undefined) byOrder.set(record.orderId, (records = new Map()));
      records.set(record.id, record);
    }
  }
  const orders = [...byOrder].map(([orderId, records]) => ({ orderId, records: [...records.values()].sort((a, b) => a.sequence - b.sequence) }));
  return { orders, holds };
}

/** A held copy of `record` still owed to `pendingTargets` (without its TTL: a hold keeps it until released). */
export function heldRecord(record: OutboxRecord | HeldOutboxRecord, pendingTargets: readonly OutboxTarget[]): HeldOutboxRecord {
  const { ttl: _ttl, pendingTargets: _pending, ...copy } = record as OutboxRecord & { pendingTargets?: unknown };
  return { ...copy, pendingTargets: [...pendingTargets] };
}

/** A new hold of `orderId` for the undelivered `records`. */
export function newHold(orderId: string, records: readonly HeldOutboxRecord[], failure: { error: string; now: string }): OutboxHold {
  return {
    id: outboxHoldId(orderId),
    docType: 'outbox-hold',
    orderId,
    failedTargets: failedTargets(records),
    records: [...records].sort((a, b) => a.sequence - b.sequence),
    lastError: failure.error,
    heldAt: failure.now,
    updatedAt: failure.now,
  };
}

/**
 * `hold` with `records` appended (those it already has are kept as they are: a replayed record is not owed twice),
 * or `undefined` when it already has them all.
 */
export function appendToHold(hold: OutboxHold, records: readonly HeldOutboxRecord[], now: string, error?: string): OutboxHold | undefined {
  const known = new Set(hold.records.map((r) => r.id));
  const added = records.filter((r) => !known.has(r.id));
  if (added.length === 0) return undefined;
  const all = [...hold.records, ...added].sort((a, b) => a.sequence - b.sequence);
  return { ...hold, records: all, failedTargets: failedTargets(all), lastError: error ?? hold.lastError, updatedAt: now };
}

/** Every target some record still has to reach, in delivery order. */
function failedTargets(records: readonly HeldOutboxRecord[]): OutboxTarget[] {
  const targets = new Set(records.flatMap((r) => r.pendingTargets));
  return Object.values(OutboxTarget).filter((t) => targets.has(t));
}

