import { DeadLetterReason } from '../deadLetterReasons.js';
import { inboxRecord } from '../documents/inboxRecord.js';
import type { OrderDocument } from '../documents/orderDocument.js';
import { applyTransition } from '../order/transition.js';
import type { StoreOperation, Stored } from '../ports/orderStore.js';
import type { Entry } from '../schemas/entry.js';
import {
  emptyOrderDocument,
  orderAfterApply,
  orderAfterPark,
  outboxRecord,
  parkedDocument,
  type EntryOrigin,
} from './documentBuilders.js';
import { verdictFromHistory, verdictFromParked, type Verdict } from './verdict.js';

/** What an operation in a planned commit stands for, so a conflict at its index can be read. */
export type OperationRole = 'inbox' | 'order' | 'parked' | 'outbox';

/** A planned atomic step: operations, their roles, and the order document it leaves behind. */
export interface CommitPlan {
  kind: 'commit';
  action: 'apply' | 'park';
  operations: StoreOperation[];
  roles: OperationRole[];
  next: OrderDocument;
}

/** The entry cannot be written: look its inbox record up (rules 2/3) and, if there is none, apply `fallback`. */
export interface LookupPlan {
  kind: 'lookup';
  fallback: Verdict;
}

/** Inputs shared by every planner. */
export interface PlanContext extends EntryOrigin {
  consumer: string;
  /** ISO time of the step. */
  now: string;
  inboxTtlSeconds: number;
}

/**
 * Plans one incoming entry against the order as last seen (rules 1, 4, 5 and 7, in the design's order). An apply
 * or park plan starts with the inbox create, which doubles as the inbox lookup of rule (b): a 409 on it sends
 * the caller to rules 2/3. Every other case reads the inbox first and falls back to the plan's verdict.
 */
export function planEntry(current: Stored<OrderDocument> | undefined, entry: Entry, hash: string, ctx: PlanContext): CommitPlan | LookupPlan {
  const doc = current?.doc;
  const lastSequence = doc?.lastSequence ?? 0;
  if (entry.sequence <= lastSequence && doc) {
    return { kind: 'lookup', fallback: verdictFromHistory(doc, entry, hash) };
  }
  if (entry.sequence > lastSequence + 1) {
    if (doc?.parked.some((p) => p.sequence === entry.sequence)) {
      return { kind: 'lookup', fallback: verdictFromParked(doc, entry, hash) };
    }
    return planPark(current, entry, hash, ctx);
  }
  const base = doc ?? emptyOrderDocument(entry.orderId, ctx.now);
  const transition = applyTransition(base.state, entry);
  if (!transition.ok) {
    return {
      kind: 'lookup',
      fallback: { kind: 'deadLetter', reason: DeadLetterReason.InvalidTransition, description: transition.error.message },
    };
  }
  const next = orderAfterApply(base, entry, hash, transition.state, ctx.now);
  return {
    kind: 'commit',
    action: 'apply',
    operations: [
      { kind: 'create', doc: inboxRecord({ ...inboxFields(entry, hash, ctx), status: 'applied' }) },
      current ? { kind: 'replace', doc: next, ifMatch: current.etag } : { kind: 'create', doc: next },
      { kind: 'create', doc: outboxRecord(entry, next, ctx.correlationId, ctx.now) },
    ],
    roles: ['inbox', 'order', 'outbox'],
    next,
  };
}

function planPark(current: Stored<OrderDocument> | undefined, entry: Entry, hash: string, ctx: PlanContext): CommitPlan {
  const next = orderAfterPark(current?.doc ?? emptyOrderDocument(entry.orderId, ctx.now), entry, hash, ctx.now);
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
  };
}
