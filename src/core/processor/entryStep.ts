/**
 * One step of one entry — a message's, or the parked entry whose turn has come (the drain) — read straight: read what
 * the entry needs, `decide` once, write what it decided in one atomic commit; on a conflict, read again and decide
 * again, at most {@link MAX_STEP_ROUNDS} times, then give up as a busy store would (rule 8). What must survive a
 * retry of the whole step is a {@link StepMemory}, passed in and handed back as a value.
 */
import { randomUUID } from 'node:crypto';
import { appliedEntryId, inboxRecordId, parkedEntryId } from '../documents/documentIds.js';
import type { InboxRecord } from '../documents/inboxRecord.js';
import type { OrderDocument } from '../documents/orderDocument.js';
import type { ParkedEntryDocument } from '../documents/parkedEntryDocument.js';
import type { TransactionDocument } from '../documents/transactionDocument.js';
import { CoreErrorCode, StoreError } from '../errors.js';
import { nextDueSequence } from '../order/followUpCheck.js';
import type { Clock } from '../ports/clock.js';
import type { CommitOutcome, KeySeen, OrderStore, OrderWrite, Stored } from '../ports/orderStore.js';
import type { Entry } from '../schemas/entry.js';
import { decide, type CheckedEntry, type Decision, type Facts, type LookUp } from './decide.js';
import type { OrderCache } from './orderCache.js';
import { writeFor, type EntryOrigin, type StepStamp } from './orderWrites.js';

/** Rounds of "the order changed → read it again → decide again" one step tries before backing off like a busy store. */
export const MAX_STEP_ROUNDS = 5;

/** A decision that is not a request to read. */
export type FinalDecision = Exclude<Decision, { kind: 'lookUp' }>;

/** What one step carries to the next attempt after a transient failure or an unknown outcome (rule 8). */
export interface StepMemory {
  /** Tokens of this message's own writes whose outcome was unknown (see `InboxRecord.attempt`). */
  ownAttempts: readonly string[];
  /** A drain write whose outcome was unknown: the next attempt asks the order whether it went through. */
  doubt?: { kind: 'apply' | 'reject'; entry: Entry };
}

/** A message's entry as the step takes it. */
export interface MessageSubject {
  checked: CheckedEntry;
  sessionId: string | undefined;
  origin: EntryOrigin;
}

/** How a step ended. */
export type StepOutcome =
  /** A message's entry: decided, and whatever the decision writes committed. */
  | { kind: 'decided'; decision: FinalDecision }
  /** The drain: the parked entry due now applied or rejected (rule 11). */
  | { kind: 'drained'; as: 'applied' | 'rejected'; entry: Entry }
  /** The drain: no parked entry is due. */
  | { kind: 'nothingDue' }
  /** Worth another attempt after a backoff (rule 8), with what the next attempt must know. */
  | { kind: 'retry'; error: StoreError; memory: StepMemory };

/** What the step needs around it. */
export interface StepDeps {
  store: OrderStore;
  clock: Clock;
  options: { consumerName: string; inboxTtlSeconds: number; outboxTtlSeconds: number };
}

/** What a step has read so far; a conflict keeps what it does not contradict. */
interface Known {
  /** The order as read (`null`: nothing of it exists), and whether it came from the cache; absent: not read yet. */
  order?: { stored: Stored<OrderDocument> | null; fromCache: boolean };
  seen: KeySeen;
  /** The amended transaction as read (`null`: none of that id), and whether it came from the cache. */
  transaction?: { stored: Stored<TransactionDocument> | null; fromCache: boolean };
  transactionExists?: boolean;
}

/** Runs the steps of entries on one processor's store. */
export class EntryStep {
  constructor(private readonly deps: StepDeps) {}

  /** The step of a message's entry (rules 1–7). */
  async message(subject: MessageSubject, cache: OrderCache, memory: StepMemory): Promise<StepOutcome> {
    const { checked } = subject;
    const orderId = checked.valid ? checked.entry.orderId : undefined;
    let known: Known = { seen: {} };
    for (let round = 0; round < MAX_STEP_ROUNDS; round++) {
      const facts = (k: Known): Facts => ({
        source: 'message',
        entry: checked,
        sessionId: subject.sessionId,
        order: k.order === undefined ? undefined : (k.order.stored?.doc ?? null),
        seen: k.seen,
        ownAttempts: new Set(memory.ownAttempts),
        ...(k.transaction !== undefined && { transaction: k.transaction.stored }),
        ...(k.transactionExists === true && { transactionExists: true }),
      });
      // Read what the entry needs, and decide.
      const decided = await this.decideReading(known, facts, { orderId, cache });
      known = decided.known;
      const { decision } = decided;
      if (!checked.valid || orderId === undefined) return { kind: 'decided', decision };
      // A dead letter cannot be taken back: decide it again on fresh reads, not on what the cache remembered.
      if (decision.kind === 'deadLetter' && (known.order?.fromCache || known.transaction?.fromCache)) {
        cache.forgetEntry(checked.entry);
        known = { seen: {} };
        continue;
      }
      // Write what it decided.
      const attempt = randomUUID();
      const { entry, hash } = checked;
      const order = known.order?.stored ?? undefined;
      const write = writeFor(
        decision,
        { entry, hash, order, origin: subject.origin, transaction: known.transaction?.stored ?? undefined },
        this.stamp(attempt),
      );
      if (write === undefined) return { kind: 'decided', decision };
      const outcome = await this.commit(orderId, write, cache);
      if (outcome.kind === 'committed') return { kind: 'decided', decision };
      if (outcome.kind === 'transient') return retry(outcome.error, memory);
      if (outcome.kind === 'unknown')
        return retry(outcome.error, { ...memory, ownAttempts: [...memory.ownAttempts, attempt] });
      // A conflict: what it taught, then decide again.
      known = afterConflict(known, outcome);
    }
    return retry(contention(orderId ?? String(subject.sessionId)), memory);
  }

  /**
   * The step of the parked entry due now on `orderId`, if any, through the same decision as a message (rule 1, or
   * rule 11 when it became impossible). Safe against another processor draining the same order: every write is
   * conditional on the order's ETag; after an unknown outcome, the order shows whether the write went through.
   */
  async parked(orderId: string, cache: OrderCache, memory: StepMemory): Promise<StepOutcome> {
    const settled: StepMemory = { ownAttempts: memory.ownAttempts };
    let missing: { sequence: number; etag: string } | undefined;
    let known: Known = { seen: {} };
    for (let round = 0; round < MAX_STEP_ROUNDS; round++) {
      // Read what the entry needs: the order, the parked entry due, and (on the first round) whether an unknown write went through.
      const order = known.order?.stored ?? (await this.currentOrder(orderId, cache)) ?? null;
      if (round === 0 && memory.doubt && order) {
        const done = committedInDoubt(order.doc, memory.doubt);
        if (done) return done;
      }
      const sequence = order ? nextDueSequence(order.doc) : undefined;
      if (!order || sequence === undefined) return { kind: 'nothingDue' };
      const parked = await this.deps.store.readParked(orderId, parkedEntryId(sequence));
      if (!parked) {
        // Another processor may have drained it after our read of the order. Only the same sequence missing again
        // under an unchanged order ETag is a contradiction (every drain replaces the order).
        if (missing?.sequence === sequence && missing.etag === order.etag) {
          throw new StoreError(
            CoreErrorCode.StoreInconsistent,
            `Order ${orderId} lists parked sequence ${sequence} but its document is missing`,
          );
        }
        missing = { sequence, etag: order.etag };
        cache.delete(orderId);
        known = { seen: {} };
        continue;
      }
      const { entry, requestHash: hash } = parked.doc;
      known = { ...known, order: { stored: order, fromCache: false } };
      const facts = (k: Known): Facts => ({
        source: 'parked',
        entry: { valid: true, entry, hash },
        order: order.doc,
        seen: k.seen,
        ...(k.transaction !== undefined && { transaction: k.transaction.stored }),
        ...(k.transactionExists === true && { transactionExists: true }),
      });
      const decided = await this.decideReading(known, facts, { orderId, cache, parked: parked.doc });
      known = decided.known;
      const { decision } = decided;
      // A rejection cannot be taken back either, and writes no transaction to check: not on a remembered one.
      if (decision.kind === 'reject' && known.transaction?.fromCache) {
        cache.forgetEntry(entry);
        known = { seen: {} };
        continue;
      }
      const origin = {
        correlationId: parked.doc.correlationId,
        messageId: parked.doc.messageId,
        traceparent: parked.doc.traceparent,
      };
      const write = writeFor(
        decision,
        {
          entry,
          hash,
          order,
          origin,
          parked: { doc: parked, ownInbox: known.seen.inbox },
          transaction: known.transaction?.stored ?? undefined,
        },
        this.stamp(),
      );
      if (write === undefined || (decision.kind !== 'apply' && decision.kind !== 'reject')) {
        throw new StoreError(
          CoreErrorCode.StoreInconsistent,
          `Parked entry ${entry.entryId} of order ${orderId} can be neither applied nor rejected (${decision.reason})`,
        );
      }
      const outcome = await this.commit(orderId, write, cache);
      if (outcome.kind === 'committed')
        return { kind: 'drained', as: decision.kind === 'apply' ? 'applied' : 'rejected', entry };
      if (outcome.kind === 'transient') return retry(outcome.error, settled);
      if (outcome.kind === 'unknown')
        return retry(outcome.error, { ...settled, doubt: { kind: decision.kind, entry } });
      known = afterConflict(known, outcome);
    }
    return retry(contention(orderId), settled);
  }

  /**
   * Commits `write` and keeps the cache true to what it left (see {@link OrderCache.afterCommit}). Transient and
   * unknown outcomes come back as errors for rule 8.
   */
  async commit(orderId: string, write: OrderWrite, cache: OrderCache): Promise<Committed> {
    let outcome: CommitOutcome;
    try {
      outcome = await this.deps.store.commit(orderId, write);
    } catch (error) {
      cache.afterCommit(orderId, write, undefined);
      throw error;
    }
    cache.afterCommit(orderId, write, outcome);
    switch (outcome.kind) {
      case 'committed':
      case 'keySeen':
      case 'transactionExists':
      case 'orderChanged':
        return outcome;
      case 'transient':
        return {
          kind: 'transient',
          error: new StoreError(CoreErrorCode.StoreTransient, outcome.reason, { retryAfterMs: outcome.retryAfterMs }),
        };
      case 'unknown':
        return { kind: 'unknown', error: new StoreError(CoreErrorCode.StoreOutcomeUnknown, outcome.reason) };
    }
  }

  /** The order as last seen: from the cache, else one point read (remembered). */
  async currentOrder(orderId: string, cache: OrderCache): Promise<Stored<OrderDocument> | undefined> {
    return cache.get(orderId) ?? this.readOrder(orderId, cache);
  }

  /** One point read of the order, remembered. */
  private async readOrder(orderId: string, cache: OrderCache): Promise<Stored<OrderDocument> | undefined> {
    const read = await this.deps.store.readOrder(orderId);
    if (read) cache.set(orderId, read);
    return read;
  }

  /**
   * `decide` on what is known, reading first each record it asks for: the order and the transaction an amendment
   * names (the cache's when it has them), the entry's inbox or applied record. Each is read at most once.
   */
  private async decideReading(
    known: Known,
    facts: (known: Known) => Facts,
    where: { orderId: string | undefined; cache: OrderCache; parked?: ParkedEntryDocument },
  ): Promise<{ decision: FinalDecision; known: Known }> {
    const asked = new Set<LookUp>();
    for (;;) {
      const decision = decide(facts(known));
      if (decision.kind !== 'lookUp') return { decision, known };
      const { entry } = facts(known);
      if (asked.has(decision.record) || !entry.valid || where.orderId === undefined)
        throw new TypeError(`decide asked again to ${decision.reason}`);
      asked.add(decision.record);
      const read = await this.read(decision.record, entry.entry, where);
      known = { ...known, ...read, seen: { ...known.seen, ...read.seen } };
    }
  }

  /** Reads one record `decide` asked for. */
  private async read(
    record: LookUp,
    entry: Entry,
    where: { orderId: string | undefined; cache: OrderCache; parked?: ParkedEntryDocument },
  ): Promise<Partial<Known>> {
    const { store, options } = this.deps;
    switch (record) {
      case 'order': {
        const cached = where.cache.get(entry.orderId);
        return {
          order: cached
            ? { stored: cached, fromCache: true }
            : { stored: (await this.readOrder(entry.orderId, where.cache)) ?? null, fromCache: false },
        };
      }
      case 'inbox': {
        const inbox =
          (await store.readInbox(entry.orderId, inboxRecordId(options.consumerName, entry.entryId))) ?? null;
        // A parked entry's own inbox record (same sequence and hash) is the only one its rejection deletes.
        return { seen: { inbox: where.parked ? ownInbox(inbox, where.parked) : inbox } };
      }
      case 'applied':
        return {
          seen: { applied: (await store.readApplied(entry.orderId, appliedEntryId(entry.entryId)))?.doc ?? null },
        };
      case 'transaction': {
        if (entry.type !== 'TransactionAmended')
          throw new TypeError(`decide asked for the transaction of a ${entry.type}`);
        const { orderId } = entry;
        const { transactionId } = entry.data;
        const cached = where.cache.transaction(orderId, transactionId);
        if (cached) return { transaction: { stored: cached, fromCache: true } };
        const read = await store.readTransaction(orderId, transactionId);
        if (read) where.cache.rememberTransaction(read);
        return { transaction: { stored: read ?? null, fromCache: false } };
      }
    }
  }

  private stamp(attempt?: string): StepStamp {
    const { options } = this.deps;
    return {
      now: new Date(this.deps.clock.now()).toISOString(),
      consumer: options.consumerName,
      inboxTtlSeconds: options.inboxTtlSeconds,
      outboxTtlSeconds: options.outboxTtlSeconds,
      attempt,
    };
  }
}

/** A commit's outcome, with transient and unknown ones as the errors rule 8 retries. */
export type Committed =
  | Exclude<CommitOutcome, { kind: 'transient' | 'unknown' }>
  | { kind: 'transient'; error: StoreError }
  | { kind: 'unknown'; error: StoreError };

/**
 * What a conflict teaches the next round: the key seen (rules 2–4), or the transaction existing (rule 7/11: the
 * order's ETag held, so the order as read is current); a changed order is read again, and only what is permanent (an
 * applied record) is kept.
 */
function afterConflict(
  known: Known,
  outcome: Extract<CommitOutcome, { kind: 'keySeen' | 'transactionExists' | 'orderChanged' }>,
): Known {
  switch (outcome.kind) {
    case 'keySeen':
      return { ...known, seen: { ...known.seen, ...outcome.seen } };
    case 'transactionExists':
      return {
        ...known,
        order: known.order && { ...known.order, fromCache: false },
        seen: { ...known.seen, ...outcome.seen },
        transactionExists: true,
      };
    case 'orderChanged':
      return { seen: known.seen.applied ? { applied: known.seen.applied } : {} };
  }
}

function retry(error: StoreError, memory: StepMemory): StepOutcome {
  return { kind: 'retry', error, memory };
}

/** The parked entry's own inbox record (same sequence and hash): only that one goes when the entry is rejected. */
function ownInbox(inbox: Stored<InboxRecord> | null, parked: ParkedEntryDocument): Stored<InboxRecord> | null {
  return inbox && inbox.doc.sequence === parked.sequence && inbox.doc.requestHash === parked.requestHash ? inbox : null;
}

/** What an in-doubt drain write did, if the order shows it committed. */
function committedInDoubt(
  doc: OrderDocument,
  doubt: { kind: 'apply' | 'reject'; entry: Entry },
): StepOutcome | undefined {
  const { entry } = doubt;
  const same = (r: { sequence: number; entryId: string }) =>
    r.sequence === entry.sequence && r.entryId === entry.entryId;
  if (doubt.kind === 'apply') {
    const applied = doc.lastSequence >= entry.sequence && !doc.parked.some(same) && !doc.rejected.some(same);
    return applied ? { kind: 'drained', as: 'applied', entry } : undefined;
  }
  return doc.rejected.some(same) ? { kind: 'drained', as: 'rejected', entry } : undefined;
}

/** A step that kept meeting concurrent changes; retried with backoff like a busy store. */
function contention(orderId: string): StoreError {
  return new StoreError(CoreErrorCode.StoreTransient, `Order ${orderId} kept changing during the step`);
}
