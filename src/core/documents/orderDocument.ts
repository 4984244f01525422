import type { DeadLetterReason } from '../deadLetterReasons.js';
import type { OrderState } from '../order/orderState.js';
import type { Entry } from '../schemas/entry.js';

/** What the order remembers about each applied sequence, for rule 4 once the inbox record has expired. */
export interface AppliedRecord {
  sequence: number;
  entryId: string;
  requestHash: string;
}

/** Index entry of a parked entry (the entry itself is its own document, see `ParkedEntryDocument`). */
export interface ParkedRecord {
  sequence: number;
  entryId: string;
  requestHash: string;
  /** ISO time it was parked; the gap's age for `GapTooOld`. */
  parkedAt: string;
}

/** A parked entry that failed when its turn came (rule 11). It leaves the list when its sequence is applied. */
export interface RejectedRecord {
  sequence: number;
  entryId: string;
  requestHash: string;
  reason: DeadLetterReason;
  description: string;
  rejectedAt: string;
  /** The entry as it was parked, so operators can correct and resubmit it. */
  entry: Entry;
  correlationId: string | undefined;
}

/**
 * The order document (`id: 'order'`): position, business state and the operational lists. It is replaced under
 * its ETag by every step, which serialises all writers of the order. Size: about 200 bytes per applied sequence
 * (the rule 4 history), so an order stays far below Cosmos DB's 2 MB item limit up to several thousand entries.
 */
export interface OrderDocument {
  id: 'order';
  docType: 'order';
  orderId: string;
  /** Highest applied sequence; 0 before `OrderCreated`. */
  lastSequence: number;
  state: OrderState;
  /** One record per applied sequence, ascending: `applied[s - 1].sequence === s`. */
  applied: AppliedRecord[];
  /** Parked sequences, ascending. */
  parked: ParkedRecord[];
  /** Rejected parked entries, ascending by sequence. */
  rejected: RejectedRecord[];
  updatedAt: string;
}
