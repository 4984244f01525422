/**
 * What one entry type is (docs/architecture.md, "Adding an entry type"): everything particular to it in one module —
 * its schema, the transaction it must read before deciding, its transition (the order's next state, its event's
 * `change`, the transaction document it writes) and how a consumer folds its `change`. The pipeline asks the module
 * (`registry.ts`) and never compares type names.
 */
import type { z } from 'zod';
import { transactionDocumentId } from '../documents/documentIds.js';
import type { TransactionDocument } from '../documents/transactionDocument.js';
import type { Transaction, OrderState } from '../order/orderState.js';
import type { BusinessState } from '../order/orderView.js';
import type { EntrySchema } from '../schemas/entry.js';

/** What the store said about the transaction an entry names, as far as the step asked. */
export interface TransactionFacts {
  /** Its create met a transaction of that `transactionId` (a 409 in the entry's batch, under the order as read). */
  exists?: boolean;
  /** The transaction the entry reads ({@link EntryTypeModule.reads}), as read; `null`: the order holds none of that id. */
  current?: TransactionDocument | null;
}

/** The transaction document an applied entry writes: created, or replaced under the ETag it was read with. */
export type TransactionWrite = { create: TransactionDocument } | { replace: TransactionDocument };

/** What an entry does at its turn: the order's next summary, its event's `change`, the transaction it writes. */
export interface Applied<C> {
  state: OrderState;
  change: C;
  transaction?: TransactionWrite;
}

/** One entry type. `S` is its schema (the entry with its `data`), `C` its event's `change`. */
export interface EntryTypeModule<S extends EntrySchema = EntrySchema, C = unknown> {
  /** The strict schema of the whole entry (`entryOf(type, data)`). */
  schema: S;
  /** The CloudEvents `type` of its event (and the Service Bus `subject`). */
  eventType: `convoy.order.${string}`;
  /** It creates the order: valid only at sequence 1 of a pending order, and every other type only after it. */
  opensOrder?: true;
  /** The `transactionId` the step must read before deciding (when the order is open and the entry at its turn). */
  reads?(entry: z.infer<S>): string;
  /**
   * The transition, the order open (or pending, for the type that opens it) and the entry at its turn: what it does,
   * or why it is impossible (rule 7). `facts.current` is set when it {@link reads} a transaction.
   */
  apply(state: OrderState, entry: z.infer<S>, facts: TransactionFacts): Applied<C> | string;
  /**
   * How a consumer folds its `change` into the order it holds. Throws when the change contradicts the order: the
   * event is never skipped.
   */
  fold(order: BusinessState, change: C): BusinessState;
}

/** Declares an entry type, its methods typed by its schema. */
export function entryType<S extends EntrySchema, C>(module: EntryTypeModule<S, C>): EntryTypeModule<S, C> {
  return module;
}

/** A new transaction's document, added by the entry at `sequence`. */
export function newTransaction(entry: { orderId: string; sequence: number }, fields: Transaction): TransactionDocument {
  return {
    id: transactionDocumentId(fields.transactionId),
    docType: 'transaction',
    orderId: entry.orderId,
    ...fields,
    addedSequence: entry.sequence,
  };
}
