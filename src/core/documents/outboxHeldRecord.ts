import type { OutboxTarget } from './outboxHold.js';
import type { StoredEvent } from './entryRecord.js';

/**
 * One held event (`id = outbox-held:<entryId>`, in the order's partition, no TTL): a copy of the stored event of an
 * applied entry's record as committed, with the targets it still owes. One document per record, so no document grows with a hold.
 * The event sent on release is the copy's, so it is the same bytes the relay would have sent.
 */
export interface OutboxHeldRecord {
  id: string;
  docType: 'outbox-held';
  orderId: string;
  /** The record's sequence (releases read the held records in this order). */
  sequence: number;
  /** Targets it has not reached yet, in delivery order (`order-events` before `webhook`). */
  pendingTargets: OutboxTarget[];
  /** The stored event as committed (a hold keeps it until released). */
  record: StoredEvent;
}
