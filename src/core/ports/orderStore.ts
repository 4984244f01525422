/**
 * The order store, in the domain's words: an order's documents live in its own partition of the `orders` container
 * (partition key `/orderId`), are read one at a time, and change only through an {@link OrderWrite} — every document
 * one step of the processor touches, written all or nothing. What a write meets comes back as a
 * {@link CommitOutcome}; only adapters know how their database says it (docs/architecture.md, "The parts").
 */
import type { AppliedEntryDocument } from '../documents/appliedEntryDocument.js';
import type { InboxRecord } from '../documents/inboxRecord.js';
import type { OrderDocument } from '../documents/orderDocument.js';
import type { OutboxRecord } from '../documents/outboxRecord.js';
import type { GapAlertMark, ParkedEntryDocument } from '../documents/parkedEntryDocument.js';
import type { RejectedEntryDocument } from '../documents/rejectedEntryDocument.js';
import type { TransactionDocument } from '../documents/transactionDocument.js';

/** Any document of the `orders` container the processor writes. Every one carries its partition key `orderId`. */
export type OrderContainerDocument =
  | OrderDocument
  | InboxRecord
  | ParkedEntryDocument
  | RejectedEntryDocument
  | OutboxRecord
  | AppliedEntryDocument
  | TransactionDocument;

/** A document read from the store with its ETag. Adapters may leave system properties (`_ts`, ...) on `doc`. */
export interface Stored<T> {
  doc: T;
  etag: string;
}

/**
 * One atomic step on one order: the documents it writes, all or nothing (one Cosmos DB transactional batch, in the
 * order inbox, parked, applied, order, transaction, rejected, outbox). Writes that must find nothing (`create`) or the
 * version the step read (`etag`) make the step fail as a whole with the outcome that says why; the failing
 * operation's place tells the conflicts apart (a 409 on the transaction comes after the order's ETag held, so it is
 * never judged against a stale order).
 */
export interface OrderWrite {
  /** The order document after the step: replaced if it still has `etag`, created when `etag` is undefined. */
  order: { doc: OrderDocument; etag: string | undefined };
  /**
   * The entry's inbox record: `create` is the arbiter of rules 2/3 (an existing record of its id fails the write
   * with `keySeen`); `upsert` for a drained entry (its parked record may have expired); `delete` under its ETag.
   */
  inbox?: { create: InboxRecord } | { upsert: InboxRecord } | { delete: Stored<InboxRecord> };
  /** A parked entry: created (rule 5), or deleted under its ETag (drained or rejected). */
  parked?: { create: ParkedEntryDocument } | { delete: Stored<ParkedEntryDocument> };
  /**
   * The entry's transaction: created by a `TransactionAdded` (one of its id fails the write with
   * `transactionExists`), replaced under the ETag it was read with by a `TransactionAmended` (a changed or missing one
   * fails it with `orderChanged`).
   */
  transaction?: { create: TransactionDocument } | { replace: Stored<TransactionDocument> };
  /**
   * A rejected entry's details (rule 11): upserted by the step that rejects it, deleted by the step that applies its
   * sequence (when its record leaves the order's `rejected` list). Unconditional: only steps that replace the order
   * under its ETag write it, and that ETag already serialises them. Written after the order, so a changed order is
   * what a stale step meets first.
   */
  rejected?: { upsert: RejectedEntryDocument } | { delete: { id: string } };
  /** The applied entry's permanent record (rule 4), created: one of its id fails the write with `keySeen`. */
  applied?: AppliedEntryDocument;
  /** The applied entry's outbox record, created. */
  outbox?: OutboxRecord;
}

/**
 * What a failed write learnt about the entry's key. `null`: known not to exist (its create came before the one that
 * failed, and did not fail); `undefined`: not known.
 */
export interface KeySeen {
  inbox?: Stored<InboxRecord> | null;
  applied?: AppliedEntryDocument | null;
}

/** What became of an {@link OrderWrite}. Nothing was written unless `committed` (or, maybe, `unknown`). */
export type CommitOutcome =
  /** Written; the order document's new ETag, and the transaction's when the write created or replaced one. */
  | { kind: 'committed'; orderEtag: string; transactionEtag?: string }
  /** The entry's key was already seen: its inbox record or its applied record exists (carried, as read after the failure). */
  | { kind: 'keySeen'; seen: KeySeen }
  /**
   * The order's ETag held, and the `TransactionAdded`'s transaction exists: rule 7 (rule 11 for a parked entry).
   * `seen` is what the creates before it proved (nothing of the entry's key exists).
   */
  | { kind: 'transactionExists'; seen: KeySeen }
  /** The order (or a document of it the step read) changed since it was read: read again and decide again. */
  | { kind: 'orderChanged'; what: string }
  /** The store was busy or unreachable and wrote nothing; worth trying again, after `retryAfterMs` if it said so. */
  | { kind: 'transient'; reason: string; retryAfterMs?: number }
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
  readInbox(orderId: string, id: string): Promise<Stored<InboxRecord> | undefined>;
  readParked(orderId: string, id: string): Promise<Stored<ParkedEntryDocument> | undefined>;
  /** Reads a `rejected:<sequence>` document (rule 11's details of a rejected entry). */
  readRejected(orderId: string, id: string): Promise<Stored<RejectedEntryDocument> | undefined>;
  /** Reads an `applied:<entryId>` record (rule 4's history). */
  readApplied(orderId: string, id: string): Promise<Stored<AppliedEntryDocument> | undefined>;
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
export interface GapStore {
  /** Every order with a parked entry or a `ParkedEntryRejected` alert still owed (one cross-partition query). */
  ordersWaiting(): Promise<OrderDocument[]>;
  readParked(orderId: string, id: string): Promise<Stored<ParkedEntryDocument> | undefined>;
  /**
   * Records a `GapTooOld` alert on the gap's oldest parked entry if it still has the ETag it was read with:
   * `'changed'` when it did not (another scan marked it, or a drain ended the gap).
   */
  markGapAlert(parked: Stored<ParkedEntryDocument>, mark: GapAlertMark): Promise<'marked' | 'changed'>;
}
