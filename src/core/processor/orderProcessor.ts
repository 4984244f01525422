/**
 * The order processor: one `orders` message, top to bottom — validate → look up → decide → commit → settle — and the
 * drain of parked entries that became due. Every decision is `decide.ts`'s; this file runs them: reads what a decision
 * needs, writes what it says in one atomic commit, retries transient failures within the message's budget (rule 8),
 * and settles the message exactly once, after the commit (docs/architecture.md, "One message's path").
 */
import { randomUUID } from 'node:crypto';
import { MAX_DEAD_LETTER_DESCRIPTION } from '../deadLetterReasons.js';
import { appliedEntryId, inboxRecordId, parkedEntryId, rejectedEntryId } from '../documents/documentIds.js';
import type { InboxRecord } from '../documents/inboxRecord.js';
import type { OrderDocument } from '../documents/orderDocument.js';
import type { ParkedEntryDocument } from '../documents/parkedEntryDocument.js';
import { rejectedDetails } from '../documents/rejectedEntryDocument.js';
import { CoreErrorCode, StoreError, errorCode } from '../errors.js';
import { nextDueSequence } from '../order/followUpCheck.js';
import { OrderStatus } from '../order/orderState.js';
import { systemClock, timerSleep, type Clock, type Sleep } from '../ports/clock.js';
import type { MessageSettlement } from '../ports/messageSettlement.js';
import type { CommitOutcome, KeySeen, OrderWrite, Stored } from '../ports/orderStore.js';
import { AlertName, CounterName } from '../ports/telemetry.js';
import { retry } from '../retry.js';
import type { Entry } from '../schemas/entry.js';
import { HAND_OFF_PROPERTY } from '../splitter/planLedger.js';
import { checkMessage, type ReceivedOrderMessage } from './checkMessage.js';
import { decide, type CheckedEntry, type Decision } from './decide.js';
import { OrderCache } from './orderCache.js';
import { writeFor, type EntryOrigin, type StepStamp } from './orderWrites.js';
import { reportResult, resultOf, type DrainReport, type Handled, type OrderProcessorDeps, type ProcessContext, type ProcessResult } from './processResult.js';
import { errorMessage } from '../errorMessage.js';

/** Rounds of "the order changed → read it again → decide again" one step tries before backing off like a busy store. */
const MAX_STEP_ROUNDS = 5;

/** What one drain step did. */
type DrainStep = { kind: 'none' } | { kind: 'applied'; entry: Entry } | { kind: 'rejected'; entry: Entry };

/** Processes `orders` messages; never throws for a decision, only when the settlement itself fails. */
export class OrderProcessor {
  private readonly clock: Clock;
  private readonly sleep: Sleep;

  constructor(private readonly deps: OrderProcessorDeps) {
    this.clock = deps.clock ?? systemClock;
    this.sleep = deps.sleep ?? timerSleep;
  }

  /**
   * Processes one message. All of its store work — the entry, the drain it triggers and the alerts it owes — shares
   * one deadline, `TRANSIENT_RETRY_BUDGET` from its start (rule 8).
   */
  async process(message: ReceivedOrderMessage, context: ProcessContext): Promise<ProcessResult> {
    const startedAt = this.clock.now();
    const { entry: checked, keys, origin } = checkMessage(message);
    const cache = context.cache ?? new OrderCache(1);
    const handled = await this.handle(checked, message.sessionId, origin, cache, startedAt + this.deps.options.transientRetryBudgetMs);
    await settle(context.settlement, handled);
    const release = handled.kind === 'decided' ? releaseAfter(handled.decision, checked, cache, message) : undefined;
    const requestHash = checked.valid ? checked.hash : undefined;
    const result = resultOf({ ...keys, requestHash }, handled, message, { release, durationMs: this.clock.now() - startedAt });
    reportResult(this.deps.telemetry, result);
    return result;
  }

  /**
   * For the gap monitor (an idle session never looks again): applies the parked entries of `orderId` that are due,
   * rejects those that became impossible, and raises the `ParkedEntryRejected` alerts still owed. Safe while a session
   * works on the same order (every write is conditional). Rejects once the budget is spent; the next call resumes.
   */
  async drain(orderId: string, context: { cache?: OrderCache } = {}): Promise<DrainReport> {
    const cache = context.cache ?? new OrderCache(1);
    const deadline = this.clock.now() + this.deps.options.transientRetryBudgetMs;
    const { drained, rejected } = await this.drainDue(orderId, cache, deadline);
    const alerted = await this.raiseOwedAlerts(orderId, cache, deadline);
    return { orderId, drained, rejected, alerted };
  }

  /** Look up → decide → commit for the message's entry, then the drain it may make due. */
  private async handle(checked: CheckedEntry, sessionId: string | undefined, origin: EntryOrigin, cache: OrderCache, deadline: number): Promise<Handled> {
    const keys = checked.valid ? checked.entry : { orderId: sessionId ?? '' };
    let decision: Exclude<Decision, { kind: 'lookUp' }>;
    try {
      decision = await this.withRetries(keys, deadline, this.entryStep(checked, sessionId, origin, cache));
    } catch (error) {
      return this.abandoned(error, keys, 'entry abandoned');
    }
    // Rule 6 settles at once: nothing of the order was read, and nothing follows from it.
    if (!checked.valid || decision.rule === 6) return { kind: 'decided', decision };
    const { entry } = checked;
    if (decision.kind === 'deadLetter' && decision.alert) {
      this.deps.telemetry.alert(decision.alert, { orderId: entry.orderId, entryId: entry.entryId, sequence: entry.sequence, description: decision.reason });
    }
    // A parked entry may be due whatever this message was (a crash mid-drain, a message the broker dead-lettered
    // before its drain succeeded). Without the order cached, only an entry applied or seen now can have made one due.
    const madeDue = decision.kind === 'apply' || decision.kind === 'duplicate' || (decision.kind === 'committed' && decision.as === 'applied');
    if (!cache.has(entry.orderId) && !madeDue) return { kind: 'decided', decision };
    let drain: { drained: number; rejected: number };
    try {
      drain = await this.drainDue(entry.orderId, cache, deadline);
    } catch (error) {
      // A dead letter stands (the next message or the gap monitor resumes the drain); anything else is redelivered,
      // and the redelivery meets its inbox record and drains again.
      if (decision.kind !== 'deadLetter') return this.abandoned(error, entry, 'drain abandoned');
      this.logFailure('warn', 'drain failed after a dead letter', error, entry);
      drain = { drained: 0, rejected: 0 };
    }
    // Alerts are owed durably: a failure here only delays them to the next step on the order or the gap monitor.
    await this.raiseOwedAlerts(entry.orderId, cache, deadline).catch((error: unknown) => this.logFailure('warn', 'owed alerts not raised yet', error, entry));
    return { kind: 'decided', decision, ...drain };
  }

  /**
   * The re-runnable step of one message's entry: decide, read what the decision asks for (the order, then the
   * entry's inbox or applied record), write what it says. A write's conflict is news for the next decision: the key
   * was seen (rules 2–4), or the order changed (read it again). Each write carries its own token in the inbox record,
   * so after an unknown outcome the next run can tell its own write (`committed`) from another processor's (a
   * duplicate).
   */
  private entryStep(checked: CheckedEntry, sessionId: string | undefined, origin: EntryOrigin, cache: OrderCache): () => Promise<Exclude<Decision, { kind: 'lookUp' }>> {
    const ownAttempts = new Set<string>();
    let confirmed = false;
    return async () => {
      let seen: KeySeen = {};
      for (let round = 0; round < MAX_STEP_ROUNDS; round++) {
        const orderId = checked.valid ? checked.entry.orderId : undefined;
        let order = orderId === undefined ? undefined : cache.get(orderId);
        let orderRead = order !== undefined;
        const fromCache = orderRead;
        const facts = () => ({ source: 'message' as const, entry: checked, sessionId, order: orderRead ? (order?.doc ?? null) : undefined, seen, ownAttempts });
        let decision = decide(facts());
        while (decision.kind === 'lookUp' && checked.valid) {
          if (decision.record === 'order') {
            order = await this.readOrder(checked.entry.orderId, cache);
            orderRead = true;
          } else {
            seen = { ...seen, ...(await this.lookUp(decision.record, checked.entry)) };
          }
          decision = decide(facts());
        }
        if (decision.kind === 'lookUp' || !checked.valid) return settledWithoutLookUp(decision);
        const { entry, hash } = checked;
        if (decision.kind === 'deadLetter' && fromCache && !confirmed) {
          // A dead letter cannot be taken back: confirm it on a fresh read of the order, not on the cache.
          confirmed = true;
          cache.delete(entry.orderId);
          seen = {};
          continue;
        }
        const attempt = randomUUID();
        const write = writeFor(decision, { entry, hash, order, origin }, this.stamp(attempt));
        if (write === undefined) return decision;
        const outcome = await this.commit(entry.orderId, write, cache, () => ownAttempts.add(attempt));
        if (outcome.kind === 'committed') return decision;
        seen = outcome.kind === 'keySeen' ? { ...seen, ...outcome.seen } : lasting(seen);
      }
      throw contention(checked.valid ? checked.entry.orderId : String(sessionId));
    };
  }

  /** Applies, one atomic step each, every parked entry due now (rejecting those now impossible), until none is due. */
  private async drainDue(orderId: string, cache: OrderCache, deadline: number): Promise<{ drained: number; rejected: number }> {
    const step = this.drainStep(orderId, cache);
    const report = { drained: 0, rejected: 0 };
    for (;;) {
      const outcome = await this.withRetries({ orderId }, deadline, step);
      if (outcome.kind === 'none') return report;
      if (outcome.kind === 'applied') {
        report.drained++;
        this.deps.telemetry.count(CounterName.EntriesApplied, { via: 'drain' });
      } else {
        report.rejected++;
        this.deps.telemetry.count(CounterName.ParkedRejected);
      }
    }
  }

  /**
   * The re-runnable step that handles the parked entry due now, if any, through the same decision as a message. Safe
   * against another processor draining the same order (every write is conditional on the order's ETag); after an
   * unknown outcome, the order document shows whether the write went through.
   */
  private drainStep(orderId: string, cache: OrderCache): () => Promise<DrainStep> {
    let doubt: { kind: 'apply' | 'reject'; entry: Entry } | undefined;
    return async () => {
      let missing: { sequence: number; etag: string } | undefined;
      let seen: KeySeen = {};
      for (let round = 0; round < MAX_STEP_ROUNDS; round++) {
        const order = await this.currentOrder(orderId, cache);
        const done = doubt && order ? committedInDoubt(order.doc, doubt) : undefined;
        doubt = undefined;
        if (done) return done;
        const sequence = order && nextDueSequence(order.doc);
        if (!order || sequence === undefined) return { kind: 'none' };
        const parked = await this.deps.store.readParked(orderId, parkedEntryId(sequence));
        if (!parked) {
          // Another processor may have drained it after our read of the order. Only the same sequence missing again
          // under an unchanged order ETag is a contradiction (every drain replaces the order).
          if (missing?.sequence === sequence && missing.etag === order.etag) {
            throw new StoreError(CoreErrorCode.StoreInconsistent, `Order ${orderId} lists parked sequence ${sequence} but its document is missing`);
          }
          missing = { sequence, etag: order.etag };
          cache.delete(orderId);
          continue;
        }
        const { entry, requestHash: hash } = parked.doc;
        const facts = () => ({ source: 'parked' as const, entry: { valid: true as const, entry, hash }, order: order.doc, seen });
        let decision = decide(facts());
        while (decision.kind === 'lookUp') {
          seen = { ...seen, inbox: ownInbox(await this.deps.store.readInbox(orderId, inboxRecordId(this.deps.options.consumerName, entry.entryId)), parked.doc) };
          decision = decide(facts());
        }
        const origin = { correlationId: parked.doc.correlationId, messageId: parked.doc.messageId, traceparent: parked.doc.traceparent };
        const write = writeFor(decision, { entry, hash, order, origin, parked: { doc: parked, ownInbox: seen.inbox } }, this.stamp());
        if (write === undefined || (decision.kind !== 'apply' && decision.kind !== 'reject')) {
          throw new StoreError(CoreErrorCode.StoreInconsistent, `Parked entry ${entry.entryId} of order ${orderId} can be neither applied nor rejected (${decision.reason})`);
        }
        const kind = decision.kind;
        const outcome = await this.commit(orderId, write, cache, () => (doubt = { kind, entry }));
        if (outcome.kind === 'committed') return kind === 'apply' ? { kind: 'applied', entry } : { kind: 'rejected', entry };
        seen = outcome.kind === 'keySeen' ? { ...seen, ...outcome.seen } : lasting(seen);
      }
      throw contention(orderId);
    };
  }

  /**
   * Raises the `ParkedEntryRejected` alert of every rejected entry still owing one (`alerted: false`, written by the
   * rejecting commit), then marks them under the order's ETag: at least once whatever fails in between (a crash, an
   * unknown outcome, the budget running out) — the next step on the order or the gap monitor raises it. A lost mark
   * only repeats an alert; within one call, each is raised once. Its description is read from the rejected entry's
   * document.
   */
  private async raiseOwedAlerts(orderId: string, cache: OrderCache, deadline: number): Promise<number> {
    const raised = new Set<string>();
    await this.withRetries({ orderId }, deadline, async () => {
      for (let round = 0; round < MAX_STEP_ROUNDS; round++) {
        const order = await this.currentOrder(orderId, cache);
        const owed = order?.doc.rejected.filter((r) => !r.alerted) ?? [];
        if (!order || owed.length === 0) return;
        for (const record of owed) {
          const key = `${record.sequence}:${record.entryId}`;
          if (raised.has(key)) continue;
          const stored = await this.deps.store.readRejected(orderId, rejectedEntryId(record.sequence));
          const description = rejectedDetails(stored?.doc)?.description;
          const { entryId, sequence, reason } = record;
          this.deps.telemetry.alert(AlertName.ParkedEntryRejected, { orderId, entryId, sequence, description: description ?? `${reason} (its rejected document is missing)`, reason });
          raised.add(key);
        }
        const now = new Date(this.clock.now()).toISOString();
        const next = { ...order.doc, rejected: order.doc.rejected.map((r) => (!r.alerted ? { ...r, alerted: true } : r)), updatedAt: now };
        const outcome = await this.commit(orderId, { order: { doc: next, etag: order.etag } }, cache, () => undefined);
        if (outcome.kind === 'committed') return;
      }
      throw contention(orderId);
    });
    return raised.size;
  }

  /** The order as last seen: from the cache, else one point read (remembered). */
  private async currentOrder(orderId: string, cache: OrderCache): Promise<Stored<OrderDocument> | undefined> {
    return cache.get(orderId) ?? this.readOrder(orderId, cache);
  }

  /** One point read of the order, remembered. */
  private async readOrder(orderId: string, cache: OrderCache): Promise<Stored<OrderDocument> | undefined> {
    const read = await this.deps.store.readOrder(orderId);
    if (read) cache.set(orderId, read);
    return read;
  }

  /** Reads one record of the entry's key, as `decide` asked: the inbox record (rules 2/3) or the applied record (rule 4). */
  private async lookUp(record: 'inbox' | 'applied', entry: Entry): Promise<KeySeen> {
    const { store, options } = this.deps;
    if (record === 'inbox') return { inbox: (await store.readInbox(entry.orderId, inboxRecordId(options.consumerName, entry.entryId))) ?? null };
    return { applied: (await store.readApplied(entry.orderId, appliedEntryId(entry.entryId)))?.doc ?? null };
  }

  /**
   * Commits `write` and keeps the cache true to what it left: the new order on success, nothing after an outcome that
   * may or may not have committed (`onUnknown` records the doubt) or a changed order. A transient or unknown outcome is
   * thrown as a `StoreError` for rule 8's retries.
   */
  private async commit(orderId: string, write: OrderWrite, cache: OrderCache, onUnknown: () => void): Promise<Exclude<CommitOutcome, { kind: 'transient' | 'unknown' }>> {
    let outcome: CommitOutcome;
    try {
      outcome = await this.deps.store.commit(orderId, write);
    } catch (error) {
      cache.delete(orderId);
      throw error;
    }
    switch (outcome.kind) {
      case 'committed':
        cache.set(orderId, { doc: write.order.doc, etag: outcome.orderEtag });
        return outcome;
      case 'orderChanged':
        cache.delete(orderId);
        return outcome;
      case 'keySeen':
        return outcome;
      case 'transient':
        throw new StoreError(CoreErrorCode.StoreTransient, outcome.reason, { retryAfterMs: outcome.retryAfterMs });
      case 'unknown':
        cache.delete(orderId);
        onUnknown();
        throw new StoreError(CoreErrorCode.StoreOutcomeUnknown, outcome.reason);
    }
  }

  /** Rule 8: runs a re-runnable step again after a transient failure, with backoff, until the message's deadline. */
  private withRetries<T>(keys: { orderId: string; entryId?: string; sequence?: number }, deadline: number, step: () => Promise<T>): Promise<T> {
    const { options, telemetry } = this.deps;
    return retry(step, {
      deadline,
      // Rule 8: a busy or unreachable store, or a write whose outcome is unknown, is tried again; anything else is not.
      retryable: (error) => errorCode(error) === CoreErrorCode.StoreTransient || errorCode(error) === CoreErrorCode.StoreOutcomeUnknown,
      baseDelayMs: options.retryBaseDelayMs,
      maxDelayMs: options.retryMaxDelayMs,
      random: this.deps.random,
      clock: this.clock,
      sleep: this.sleep,
      onRetry: (error, attempt, delayMs) => {
        telemetry.count(CounterName.StoreRetries);
        telemetry.log('warn', 'transient store failure, retrying', { orderId: keys.orderId, entryId: keys.entryId, sequence: keys.sequence, code: errorCode(error), attempt, delayMs });
      },
    });
  }

  private stamp(attempt?: string): StepStamp {
    const { options } = this.deps;
    return { now: new Date(this.clock.now()).toISOString(), consumer: options.consumerName, inboxTtlSeconds: options.inboxTtlSeconds, outboxTtlSeconds: options.outboxTtlSeconds, attempt };
  }

  private abandoned(error: unknown, entry: { orderId: string; entryId?: string; sequence?: number }, message: string): Handled {
    const { code, description } = this.logFailure('error', message, error, entry);
    return { kind: 'abandoned', errorCode: code, description };
  }

  private logFailure(level: 'warn' | 'error', message: string, error: unknown, entry: { orderId: string; entryId?: string; sequence?: number }) {
    const code = errorCode(error);
    const description = errorMessage(error);
    this.deps.telemetry.log(level, message, { orderId: entry.orderId, entryId: entry.entryId, sequence: entry.sequence, code, description });
    return { code, description };
  }
}

/** The one place a decision becomes a settlement: complete, dead-letter (with its reason) or abandon. */
async function settle(settlement: MessageSettlement, handled: Handled): Promise<void> {
  if (handled.kind === 'abandoned') return settlement.abandon();
  const { decision } = handled;
  if (decision.kind === 'deadLetter') return settlement.deadLetter(decision.deadLetterReason, decision.reason.slice(0, MAX_DEAD_LETTER_DESCRIPTION));
  return settlement.complete();
}

/** Rule 6's decision needs nothing from the store. */
function settledWithoutLookUp(decision: Decision): Exclude<Decision, { kind: 'lookUp' }> {
  if (decision.kind === 'lookUp') throw new TypeError(`an invalid entry asked to ${decision.reason}`);
  return decision;
}

/**
 * Whether the host should hand the session on (`releaseSession`) instead of idling `sessionIdleTimeout` on it: the
 * order is deleted after this message (its `OrderDeleted` applied now, directly or by the drain, or seen again: end of
 * sequence, nothing can follow), or the splitter marked the message as its order's last entry in that ledger.
 * Never for an abandoned message (the redelivery comes first), nor for one of another order than the session's.
 */
function releaseAfter(decision: Exclude<Decision, { kind: 'lookUp' }>, checked: CheckedEntry, cache: OrderCache, message: ReceivedOrderMessage): ProcessResult['releaseSession'] {
  // The cache holds the order as this message's last step left (or read) it.
  const deleted = checked.valid && decision.rule !== 6 && cache.get(checked.entry.orderId)?.doc.state.status === OrderStatus.Deleted;
  if (deleted) return 'orderDeleted';
  return message.applicationProperties?.[HAND_OFF_PROPERTY] === true ? 'handOff' : undefined;
}

/** What survives a changed order: an applied record found (they are permanent); the rest is read again. */
function lasting(seen: KeySeen): KeySeen {
  return seen.applied ? { applied: seen.applied } : {};
}

/** The parked entry's own inbox record (same sequence and hash): only that one goes when the entry is rejected. */
function ownInbox(inbox: Stored<InboxRecord> | undefined, parked: ParkedEntryDocument): Stored<InboxRecord> | null {
  return inbox && inbox.doc.sequence === parked.sequence && inbox.doc.requestHash === parked.requestHash ? inbox : null;
}

/** What an in-doubt drain write did, if the order shows it committed. */
function committedInDoubt(doc: OrderDocument, doubt: { kind: 'apply' | 'reject'; entry: Entry }): DrainStep | undefined {
  const { entry } = doubt;
  const same = (r: { sequence: number; entryId: string }) => r.sequence === entry.sequence && r.entryId === entry.entryId;
  if (doubt.kind === 'apply') {
    const applied = doc.lastSequence >= entry.sequence && !doc.parked.some(same) && !doc.rejected.some(same);
    return applied ? { kind: 'applied', entry } : undefined;
  }
  return doc.rejected.some(same) ? { kind: 'rejected', entry } : undefined;
}

/** Thrown when a step keeps meeting concurrent changes; retried with backoff like a busy store. */
function contention(orderId: string): StoreError {
  return new StoreError(CoreErrorCode.StoreTransient, `Order ${orderId} kept changing during the step`);
}
