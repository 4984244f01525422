import type { DeadLetterReason } from '../deadLetterReasons.js';
import { CoreErrorCode, StoreError } from '../errors.js';
import type { OrderState } from '../order/orderState.js';

/** Index entry of a parked entry (the entry itself is in its record, see `ParkedEntryRecord`). */
export interface ParkedRecord {
  sequence: number;
  entryId: string;
  requestHash: string;
  /** ISO time it was parked; the gap's age for `GapTooOld`. */
  parkedAt: string;
}

/**
 * A parked entry that failed when its turn came (rule 11): the order's index entry of it, small and bounded (the
 * entry, its full description and its ledger id are in its record, see `RejectedEntryRecord`). It leaves the list when its
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
 * The order document (`id: 'order'`): the order's summary — position, business state without its transactions — and
 * the operational lists. It is replaced under its ETag by every step, which serialises all writers of the order. It
 * holds neither the transactions (one `TransactionDocument` each) nor per-entry history (one `EntryRecord` each), so it is constant in size while nothing is parked; the `parked` index is bounded by
 * `ORDER_MAX_PARKED`.
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

/**
 * `doc` as an order document of this version, read from a store: one written by an earlier 0.x version (its
 * transactions inline, no `transactionCount`) is refused with `StoredFormatUnknown`, never converted (pre-1.0).
 * @throws StoreError `StoredFormatUnknown`
 */
export function checkedOrderDocument<T extends OrderDocument>(doc: T): T {
  if (typeof (doc.state as Partial<OrderState> | undefined)?.transactionCount !== 'number') {
    throw new StoreError(
      CoreErrorCode.StoredFormatUnknown,
      `The order document of order ${doc.orderId} was written by an earlier version of Ledger Convoy (it has no transactionCount) and is not read by this one. ` +
        'Locally, delete the directory given to `npm start -- --data-dir` (or `emulator:cosmos --data-dir`) and start again (CHANGELOG.md).',
    );
  }
  return doc;
}

/** Orders the `parked` and `rejected` indexes: ascending by sequence. */
export function bySequence(a: { sequence: number }, b: { sequence: number }): number {
  return a.sequence - b.sequence;
}
