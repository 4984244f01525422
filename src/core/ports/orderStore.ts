/**
 * The order store, in the domain's words: an order's documents live in its own partition of the `orders` container
 * (partition key `/orderId`), are read one at a time, and change only through an {@link OrderWrite} — every document
 * one step of the processor touches, written all or nothing. What a write meets comes back as a
 * {@link CommitOutcome}; only adapters know how their database says it (docs/architecture.md, "The parts").
 */
import type { EntryRecord, GapAlertMark, ParkedEntryRecord } from '../documents/entryRecord.js';
import type { OrderDocument } from '../documents/orderDocument.js';
import type { TransactionDocument } from '../documents/transactionDocument.js';

/** Any document of the `orders` container the processor writes. Every one carries its partition key `orderId`. */
export type OrderContainerDocument = OrderDocument | EntryRecord | TransactionDocument;

/** A document read from the store with its ETag. Adapters may leave system properties (`_ts`, ...) on `doc`. */
export interface Stored<T> {
  doc: T;
  etag: string;
}

/**
 * One atomic step on one order: at most three documents, all or nothing (one Cosmos DB transactional batch, in the
 * order entry record, order, transaction). Writes that must find nothing (`create`) or the version the step read
 * (`etag`) make the step fail as a whole with the outcome that says why; the failing operation's place tells the
 * conflicts apart: a 409 on the entry's record is its key seen (rules 2–4); a 409 on the transaction comes after the
 * order's ETag held, so it is never judged against a stale order (rule 7).
 */
export interface OrderWrite {
  /**
   * The entry's record: `create` is the arbiter of rules 2/3 (an existing record of its id fails the write with
   * `keySeen`); `replace` under the ETag it was read with (a parked entry drained or rejected, a rejected one
   * corrected) fails with `orderChanged` when it changed.
   */
  entry?: { create: EntryRecord } | { replace: Stored<EntryRecord> };
  /** The order document after the step: replaced if it still has `etag`, created when `etag` is undefined. */
  order: { doc: OrderDocument; etag: string | undefined };
  /**
   * The entry's transaction: created by a `TransactionAdded` (one of its id fails the write with
   * `transactionExists`), replaced under the ETag it was read with by an entry that changes it, such as a
   * `TransactionAmended` (a changed or missing one fails it with `orderChanged`).
   */
  transaction?: { create: TransactionDocument } | { replace: Stored<TransactionDocument> };
}

/** What became of an {@link OrderWrite}. Nothing was written unless `committed` (or, maybe, `unknown`). */
export type CommitOutcome =
  /** Written; the order document's new ETag, and the transaction's when the write created or replaced one. */
  | { kind: 'committed'; orderEtag: string; transactionEtag?: string }
  /** The entry's key was already seen: its record exists (carried as read after the failure; `null`: gone since). */
  | { kind: 'keySeen'; record: Stored<EntryRecord> | null }
  /** The order's ETag held, and the `TransactionAdded`'s transaction exists: rule 7 (rule 11 for a parked entry). */
  | { kind: 'transactionExists' }
  /** The order (or a document of it the step read) changed since it was read: read again and decide again. */
  | { kind: 'orderChanged'; what: string }
  /**
   * The store was busy or unreachable and wrote nothing; worth trying again, after `retryAfterMs` if it said so.
   * `throttled`: busy only because of its throughput budget (Cosmos 429), to be waited out however long (rule 8).
   */
  | { kind: 'transient'; reason: string; retryAfterMs?: number; throttled?: boolean }
  /** No answer after the write may have reached the store: it may or may not have committed. */
  | { kind: 'unknown'; reason: string };

/**
 * An order's documents. Reads answer `undefined` for a document that does not exist and throw a `StoreError` when the
 * store fails (code `StoreTransient` worth retrying, `StoreFailed` otherwise); a commit throws only for a failure that
 * is neither transient nor unknown (`StoreFailed`). The in-memory store (`test/support/fakes`) and the Cosmos DB store
 * (`src/adapters/cosmosOrderStore.ts`) pass the same contract suite (`test/unit/contracts/orderStoreContract.ts`).
 */
export interface OrderStore {
  readOrder(orderId: string): Promise<Stored<OrderDocument> | undefined>;
  /** Reads an entry's record (`entry:<consumer>:<entryId>`, see `entryRecordId`). */
  readEntry(orderId: string, id: string): Promise<Stored<EntryRecord> | undefined>;
  /**
   * Reads the transaction `transactionId` of the order (one point read of `transactionDocumentId`); a document whose
   * stored `transactionId` differs counts as not found.
   */
  readTransaction(orderId: string, transactionId: string): Promise<Stored<TransactionDocument> | undefined>;
  /** Every transaction of the order, ascending by `addedSequence` (one single-partition query). */
  listTransactions(orderId: string): Promise<TransactionDocument[]>;
  /** Writes one step of order `orderId`, all or nothing. */
  commit(orderId: string, write: OrderWrite): Promise<CommitOutcome>;
}

/** What the gap monitor reads and writes (rule 5's `GapTooOld`). */
export interface GapStore extends Pick<OrderStore, 'readEntry'> {
  /** Every order with a parked entry or a `ParkedEntryRejected` alert still owed (one cross-partition query). */
  ordersWaiting(): Promise<OrderDocument[]>;
  /**
   * Records a `GapTooOld` alert on the gap's oldest parked entry's record if it still has the ETag it was read with:
   * `'changed'` when it did not (another scan marked it, or a drain ended the gap).
   */
  markGapAlert(parked: Stored<ParkedEntryRecord>, mark: GapAlertMark): Promise<'marked' | 'changed'>;
}
