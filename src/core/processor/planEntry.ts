import { DeadLetterReason } from '../deadLetterReasons.js';
import { inboxRecord } from '../documents/inboxRecord.js';
import type { OrderDocument } from '../documents/orderDocument.js';
import { OrderStatus } from '../order/orderState.js';
import { applyTransition } from '../order/transition.js';
import type { StoreOperation, Stored } from '../ports/orderStore.js';
import type { Entry } from '../schemas/entry.js';
import { ORDER_MAX_PARKED } from '../schemas/limits.js';
import {
  appliedDocument,
  emptyOrderDocument,
  orderAfterApply,
  orderAfterPark,
  outboxRecord,
  parkedDocument,
  type EntryOrigin,
} from './documentBuilders.js';
import { verdictFromOtherSequence, verdictFromParked, type Verdict } from './verdict.js';

/** What an operation in a planned commit stands for, so a conflict at its index can be read. */
export type OperationRole = 'inbox' | 'applied' | 'order' | 'parked' | 'outbox';

/** A planned atomic step: operations, their roles, and the order document it leaves behind. */
export interface CommitPlan {
  kind: 'commit';
  action: 'apply' | 'park';
  operations: StoreOperation[];
  roles: OperationRole[];
  next: OrderDocument;
}

/**
 * The entry cannot be written: look its inbox record up (rules 2/3) and, if there is none, apply `fallback` —
 * for `history`, read this `entryId`'s applied record first (rule 4).
 */
export interface LookupPlan {
  kind: 'lookup';
  fallback: Verdict | 'history';
}

/** Inputs shared by every planner. */
export interface PlanContext extends EntryOrigin {
  consumer: string;
  /** ISO time of the step. */
  now: string;
  inboxTtlSeconds: number;
  /** TTL of the outbox records (`OUTBOX_TTL`), in seconds. */
  outboxTtlSeconds: number;
  /** Token of this attempt, written into the inbox record (see `InboxRecord.attempt`). */
  attempt?: string;
}

/**
 * Plans one incoming entry against the order as last seen (rules 1, 3, 4, 5 and 7, in the design's order). An
 * apply or park plan starts with the inbox create, which doubles as the inbox lookup of rule (b): a 409 on it
 * sends the caller to rules 2/3. Every other case reads the inbox first and falls back to the plan's verdict.
 *
 * A sequence that is parked is never applied over, even when it is the next one: the parked entry is due and the
 * drain applies it, so an incoming entry there is the parked one again (rules 2/3) or another one (rule 4's last
 * sentence). A deleted order accepts nothing after its `OrderDeleted` (rule 7), parked or not.
 */
export function planEntry(current: Stored<OrderDocument> | undefined, entry: Entry, hash: string, ctx: PlanContext): CommitPlan | LookupPlan {
  const doc = current?.doc ?? emptyOrderDocument(entry.orderId, ctx.now);
  if (entry.sequence <= doc.lastSequence) return { kind: 'lookup', fallback: 'history' };
  const elsewhere = verdictFromOtherSequence(doc, entry);
  if (elsewhere) return { kind: 'lookup', fallback: elsewhere };
  if (doc.parked.some((p) => p.sequence === entry.sequence)) return { kind: 'lookup', fallback: verdictFromParked(doc, entry, hash) };
  if (entry.sequence > doc.lastSequence + 1 && doc.state.status !== OrderStatus.Deleted) return planPark(current, entry, hash, ctx);

  const transition = applyTransition(doc.state, entry);
  if (!transition.ok) {
    return {
      kind: 'lookup',
      fallback: { kind: 'deadLetter', reason: DeadLetterReason.InvalidTransition, description: transition.error.message },
    };
  }
  const next = orderAfterApply(doc, entry, transition.state, ctx.now);
  return {
    kind: 'commit',
    action: 'apply',
    operations: [
      { kind: 'create', doc: inboxRecord({ ...inboxFields(entry, hash, ctx), status: 'applied' }) },
      { kind: 'create', doc: appliedDocument(entry, hash, ctx.now) },
      current ? { kind: 'replace', doc: next, ifMatch: current.etag } : { kind: 'create', doc: next },
      { kind: 'create', doc: outboxRecord(entry, next, ctx, ctx) },
    ],
    roles: ['inbox', 'applied', 'order', 'outbox'],
    next,
  };
}

/**
 * Rule 5, within the parked bound: past {@link ORDER_MAX_PARKED} the entry is dead-lettered `InvalidTransition`
 * and, never recorded as seen, holds the order at its sequence (rule 10). As a lookup, so a copy of an entry
 * parked before (its inbox record) is still a duplicate.
 */
function planPark(current: Stored<OrderDocument> | undefined, entry: Entry, hash: string, ctx: PlanContext): CommitPlan | LookupPlan {
  const doc = current?.doc ?? emptyOrderDocument(entry.orderId, ctx.now);
  if (doc.parked.length >= ORDER_MAX_PARKED) {
    const description =
      `Order ${entry.orderId} already holds ${ORDER_MAX_PARKED} parked entries, the most an order may hold; ` +
      `sequence ${entry.sequence} cannot park behind the gap at ${doc.lastSequence + 1}`;
    return { kind: 'lookup', fallback: { kind: 'deadLetter', reason: DeadLetterReason.InvalidTransition, description } };
  }
  const next = orderAfterPark(doc, entry, hash, ctx.now);
  return {
    kind: 'commit',
    action: 'park',
    operations: [
      { kind: 'create', doc: inboxRecord({ ...inboxFields(entry, hash, ctx), status: 'parked' }) },
      { kind: 'create', doc: parkedDocument(entry, hash, ctx, ctx.now) },
      current ? { kind: 'replace', doc: next, ifMatch: current.etag } : { kind: 'create', doc: next },
    ],
    roles: ['inbox', 'parked', 'order'],
    next,
  };
}

/** The inbox fields of an entry, status aside. */
export function inboxFields(entry: Entry, hash: string, ctx: PlanContext) {
  return {
    consumer: ctx.consumer,
    orderId: entry.orderId,
    entryId: entry.entryId,
    requestHash: hash,
    sequence: entry.sequence,
    now: ctx.now,
    ttlSeconds: ctx.inboxTtlSeconds,
    attempt: ctx.attempt,
  };
}
