import type { DeadLetterReason } from '../deadLetterReasons.js';
import type { OrderState } from '../order/orderState.js';

/** Index entry of a parked entry (the entry itself is its own document, see `ParkedEntryDocument`). */
export interface ParkedRecord {
  sequence: number;
  entryId: string;
  requestHash: string;
  /** ISO time it was parked; the gap's age for `GapTooOld`. */
  parkedAt: string;
}

/**
 * A parked entry that failed when its turn came (rule 11): the order's index entry of it, small and bounded (the
 * entry, its full description and its ledger id are its `RejectedEntryDocument`). It leaves the list when its
 * sequence is applied.
 */
export interface RejectedRecord {
  sequence: number;
  entryId: string;
  requestHash: string;
  reason: DeadLetterReason;
  rejectedAt: string;
  /**
   * The `resubmitCount` of the message whose entry was parked then rejected: the next resubmission of this entry is
   * numbered from it (rule 10). Absent = 0.
   */
  resubmitCount?: number;
  /**
   * Whether its `ParkedEntryRejected` alert has been raised. Written `false` in the rejecting commit and set once
   * the alert is out, so the alert survives a crash or a lost reply (at least once; a lost mark only repeats it).
   */
  alerted: boolean;
}

/**
 * The order document (`id: 'order'`): position, business state and the operational lists. It is replaced under
 * its ETag by every step, which serialises all writers of the order. It holds no per-applied-entry history (that
 * is one `AppliedEntryDocument` per entry), so it grows only with the order's transactions and its operational
 * lists, not with the number of entries applied.
 */
export interface OrderDocument {
  id: 'order';
  docType: 'order';
  orderId: string;
  /** Highest applied sequence; 0 before `OrderCreated`. */
  lastSequence: number;
  state: OrderState;
  /** Parked sequences, ascending. */
  parked: ParkedRecord[];
  /** Rejected parked entries, ascending by sequence. */
  rejected: RejectedRecord[];
  updatedAt: string;
}
