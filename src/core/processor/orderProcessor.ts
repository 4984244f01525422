/**
 * The order processor: one `orders` message, top to bottom, and what it makes due on its order. Every entry goes
 * through one straight step, the same for a message and for a parked entry whose turn has come: read what the entry
 * needs, `decide` once, write once; on a conflict read again and decide again; a busy store or an unknown outcome
 * backs off and goes round the same loop within the message's budget, and a throttling store is waited out with the
 * message kept locked, however long (rule 8). The message is settled exactly once, after the commit
 * (docs/architecture.md, "One message's path").
 */
import { entryRecordId } from '../documents/documentIds.js';
import { EntryStatus, rejectedDetails, type EntryRecord } from '../documents/entryRecord.js';
import type { OrderDocument } from '../documents/orderDocument.js';
import type { TransactionDocument } from '../documents/transactionDocument.js';
import { CoreErrorCode, StoreError, errorCode, isThrottled } from '../errors.js';
import { dueOn } from '../order/followUpCheck.js';
import { systemClock, timerSleep, type Clock, type Sleep } from '../ports/clock.js';
import type { OrderWrite, Stored } from '../ports/orderStore.js';
import { AlertName, CounterName } from '../ports/telemetry.js';
import { waitToRetry } from '../retry.js';
import type { Entry } from '../entryTypes/registry.js';
import type { MessageSettlement } from '../ports/messageSettlement.js';
import {
  checkMessage,
  decide,
  notOfSession,
  standsOnWhatWasRead,
  transactionToRead,
  type CheckedEntry,
  type Decision,
  type EntryOrigin,
  type ReadBasis,
  type ReceivedOrderMessage,
} from './decide.js';
import { OrderCache } from './orderCache.js';
import { writeFor } from './orderWrites.js';
import {
  abandoned,
  logFailure,
  releaseAfter,
  reportResult,
  resultOf,
  settle,
  type DrainReport,
  type Handled,
  type OrderProcessorDeps,
  type ProcessContext,
  type ProcessResult,
} from './processResult.js';

/** Conflicts in a row ("the order changed → read again → decide again") before a step backs off like a busy store. */
const MAX_CONFLICT_ROUNDS = 5;

/** The `orders` lock duration when the options do not give it (the queue's default, PT1M). */
const DEFAULT_LOCK_DURATION_MS = 60_000;

/**
 * When a call's store work must stop: `at` (clock ms) for a busy store or an unknown outcome; a throttling store
 * (Cosmos 429) is waited out past it when `keepLock` can keep the message locked meanwhile (rule 8).
 */
interface Deadline {
  at: number;
  /** Renews the message's lock when a renewal is due; throws when the lock is lost. */
  keepLock?: () => Promise<void>;
}

/** What a step is about: a message's entry, or whatever is due on an order (a parked entry, an owed alert). */
type Subject =
  | { kind: 'message'; entry: Entry; hash: string; origin: EntryOrigin }
  | { kind: 'due'; orderId: string; raised: Set<string> };

/** What a step knows at the start of a round: each round reads the rest again. */
interface Known {
  /** Read the order and the transaction from the store, not the cache, and the entry's record. */
  fresh: boolean;
  /** The entry's record, as a refused create met it (`null`: gone since). */
  record?: Stored<EntryRecord> | null;
  /** The order ETag under which the transaction the entry creates was found to exist. */
  transactionExistsUnder?: string;
  /** A parked record the order lists but that was missing, and the order's ETag then. */
  missing?: { sequence: number; etag: string };
}

/** What one round read. */
interface Round extends ReadBasis {
  entry: Entry;
  hash: string;
  origin: EntryOrigin;
  order: Stored<OrderDocument> | undefined;
  record: Stored<EntryRecord> | null | undefined;
  transaction?: Stored<TransactionDocument> | null;
  /** For an owed alert: the decision, ready. */
  alert?: Extract<Decision, { kind: 'alert' }>;
}

/** How a step ended. */
type StepOutcome = { kind: 'decided'; decision: Decision; source: Round['source'] } | { kind: 'nothingDue' };

/** Processes `orders` messages; never throws for a decision, only when the settlement itself fails. */
export class OrderProcessor {
  private readonly clock: Clock;
  private readonly sleep: Sleep;
  /** Until when the store asked this instance to wait (its last 429's `retryAfterMs`): every step holds off till then. */
  private throttledUntil = 0;

  constructor(private readonly deps: OrderProcessorDeps) {
    this.clock = deps.clock ?? systemClock;
    this.sleep = deps.sleep ?? timerSleep;
  }

  /**
   * Processes one message. All of its store work — the entry, and what it makes due on the order — shares one
   * deadline, `TRANSIENT_RETRY_BUDGET` from its start (rule 8).
   */
  async process(message: ReceivedOrderMessage, context: ProcessContext): Promise<ProcessResult> {
    const startedAt = this.clock.now();
    const { entry: checked, keys, origin } = checkMessage(message);
    const cache = context.cache ?? new OrderCache(1);
    const deadline = {
      at: startedAt + this.deps.options.transientRetryBudgetMs,
      keepLock: this.lockKeeper(context.settlement),
    };
    const handled = await this.handle(checked, message.sessionId, origin, cache, deadline);
    await settle(context.settlement, handled);
    const release = handled.kind === 'decided' ? releaseAfter(handled.decision, checked, cache, message) : undefined;
    const requestHash = checked.valid ? checked.hash : undefined;
    const result = resultOf({ ...keys, requestHash }, handled, message, {
      release,
      durationMs: this.clock.now() - startedAt,
    });
    reportResult(this.deps.telemetry, result);
    return result;
  }

  /**
   * For the gap monitor (an idle session never looks again): applies the parked entries of `orderId` that are due,
   * rejects those that became impossible, and raises the `ParkedEntryRejected` alerts still owed. Safe while a session
   * works on the same order (every write is conditional). Rejects once the budget is spent, throttled or not (no
   * message waits on it); the next call resumes.
   */
  async drain(orderId: string, context: { cache?: OrderCache } = {}): Promise<DrainReport> {
    const cache = context.cache ?? new OrderCache(1);
    const deadline = { at: this.clock.now() + this.deps.options.transientRetryBudgetMs };
    return { orderId, ...(await this.followUp(orderId, cache, deadline)) };
  }

  /** The message's entry (one step), then what it made due on the order. */
  private async handle(
    checked: CheckedEntry,
    sessionId: string | undefined,
    origin: EntryOrigin,
    cache: OrderCache,
    deadline: Deadline,
  ): Promise<Handled> {
    // (a) Rule 6 settles at once: nothing of the order is read, and nothing follows from it.
    const notOurs = notOfSession(checked, sessionId);
    if (notOurs || !checked.valid) return { kind: 'decided', decision: notOurs! };
    const { entry, hash } = checked;
    let decision: Decision;
    try {
      const outcome = await this.step({ kind: 'message', entry, hash, origin }, cache, deadline);
      if (outcome.kind !== 'decided') throw new TypeError(`a message's step ended as ${outcome.kind}`);
      decision = outcome.decision;
    } catch (error) {
      return abandoned(this.deps.telemetry, error, entry, 'entry abandoned');
    }
    if (decision.kind === 'deadLetter' && decision.alert) {
      this.deps.telemetry.alert(decision.alert, {
        orderId: entry.orderId,
        entryId: entry.entryId,
        sequence: entry.sequence,
        description: decision.reason,
      });
    }
    // Something may be due whatever this message was (a crash mid-drain, a message the broker dead-lettered before its
    // drain succeeded). Without the order cached, only an entry applied or seen now can have made something due.
    if (!cache.has(entry.orderId) && decision.kind !== 'apply' && decision.kind !== 'duplicate')
      return { kind: 'decided', decision };
    try {
      const { drained, rejected } = await this.followUp(entry.orderId, cache, deadline);
      return { kind: 'decided', decision, drained, rejected };
    } catch (error) {
      // A dead letter stands (the next message or the gap monitor resumes); anything else is redelivered, and the
      // redelivery meets its record (a duplicate) and follows up again.
      if (decision.kind !== 'deadLetter') return abandoned(this.deps.telemetry, error, entry, 'drain abandoned');
      logFailure(this.deps.telemetry, 'warn', 'drain failed after a dead letter', error, entry);
      return { kind: 'decided', decision };
    }
  }

  /** Runs the order's due steps — parked entries at their turn, owed alerts — until nothing is due. */
  private async followUp(
    orderId: string,
    cache: OrderCache,
    deadline: Deadline,
  ): Promise<Omit<DrainReport, 'orderId'>> {
    const report = { drained: 0, rejected: 0, alerted: 0 };
    // Alerts raised by this call: a marking that lost a race is not raised twice by one call.
    const raised = new Set<string>();
    for (;;) {
      const outcome = await this.step({ kind: 'due', orderId, raised }, cache, deadline);
      if (outcome.kind === 'nothingDue') return { ...report, alerted: raised.size };
      if (outcome.decision.kind === 'apply') {
        report.drained++;
        this.deps.telemetry.count(CounterName.EntriesApplied, { via: 'drain' });
      } else if (outcome.decision.kind === 'reject') {
        report.rejected++;
        this.deps.telemetry.count(CounterName.ParkedRejected);
      }
    }
  }

  /**
   * One step, straight: read what the entry needs, decide once, write once; on a conflict read again and decide
   * again; on a busy store or an unknown outcome back off (rule 8) and go round. A retry after an unknown outcome
   * meets the entry's own record with the same hash: a duplicate (rule 2).
   */
  private async step(subject: Subject, cache: OrderCache, deadline: Deadline): Promise<StepOutcome> {
    const orderId = subject.kind === 'message' ? subject.entry.orderId : subject.orderId;
    let known: Known = { fresh: false };
    let conflicts = 0;
    let failures = 0;
    for (;;) {
      try {
        await this.holdOffWhileThrottled();
        const round = await this.read(subject, known, cache);
        if (round === 'nothingDue') return { kind: 'nothingDue' };
        if ('again' in round) {
          known = round.again;
          continue;
        }
        const decision = round.alert ?? this.decide(round, known);
        if (!standsOnWhatWasRead(decision, round)) {
          cache.forgetEntry(round.entry);
          known = { fresh: true };
          continue;
        }
        const write = this.writeOf(decision, round);
        if (write === undefined) return { kind: 'decided', decision, source: round.source };
        if (decision.kind === 'alert') this.raiseOwed(decision, round, subject);
        const outcome = await this.commit(orderId, write, cache);
        if (outcome === 'committed') return { kind: 'decided', decision, source: round.source };
        if (++conflicts > MAX_CONFLICT_ROUNDS) {
          conflicts = 0;
          throw new StoreError(CoreErrorCode.StoreTransient, `Order ${orderId} kept changing during the step`);
        }
        known = { fresh: known.fresh, ...outcome };
      } catch (error) {
        await this.backOff(error, failures++, deadline, subject);
        known = { fresh: known.fresh };
      }
    }
  }

  /** Reads what the round needs: the order (cached or one point read), the entry's record and transaction as needed. */
  private async read(
    subject: Subject,
    known: Known,
    cache: OrderCache,
  ): Promise<Round | 'nothingDue' | { again: Known }> {
    const { store, options } = this.deps;
    const orderId = subject.kind === 'message' ? subject.entry.orderId : subject.orderId;
    const cachedOrder = known.fresh ? undefined : cache.get(orderId);
    const order = cachedOrder ?? (await this.readOrder(orderId, cache));
    let source: Round['source'] = 'message';
    let entry: Entry;
    let hash: string;
    let origin: EntryOrigin;
    let record: Stored<EntryRecord> | null | undefined;
    if (subject.kind === 'message') {
      ({ entry, hash, origin } = subject);
      const applied = entry.sequence <= (order?.doc.lastSequence ?? 0);
      record =
        known.record !== undefined
          ? known.record
          : known.fresh || applied
            ? ((await store.readEntry(orderId, entryRecordId(options.consumerName, entry.entryId))) ?? null)
            : undefined;
    } else {
      const due = order && dueOn(order.doc);
      if (!order || !due) return 'nothingDue';
      const { entryId, sequence } = due.kind === 'parked' ? due.parked : due.rejected;
      record = (await store.readEntry(orderId, entryRecordId(options.consumerName, entryId))) ?? null;
      if (due.kind === 'alert') return this.owedAlert(order, due.rejected, record);
      source = 'parked';
      const parked = record?.doc;
      if (parked?.status !== EntryStatus.Parked || parked.sequence !== sequence) {
        // Another processor may have drained it after this order was read; only the same sequence missing again under
        // an unchanged order ETag is a contradiction (every drain replaces the order).
        if (known.missing?.sequence === sequence && known.missing.etag === order.etag)
          throw new StoreError(
            CoreErrorCode.StoreInconsistent,
            `Order ${orderId} lists parked sequence ${sequence} but its record is missing`,
          );
        cache.delete(orderId);
        return { again: { fresh: true, missing: { sequence, etag: order.etag } } };
      }
      entry = parked.entry;
      hash = parked.requestHash;
      origin = { correlationId: parked.correlationId, messageId: parked.messageId, traceparent: parked.traceparent };
    }
    const round: Round = {
      source,
      entry,
      hash,
      origin,
      order,
      record,
      orderCached: cachedOrder !== undefined,
      transactionCached: false,
    };
    const transactionId = transactionToRead(entry, order?.doc);
    if (transactionId !== undefined) {
      const cached = known.fresh ? undefined : cache.transaction(orderId, transactionId);
      const read = cached ?? (await store.readTransaction(orderId, transactionId));
      if (read && !cached) cache.rememberTransaction(read);
      round.transaction = read ?? null;
      round.transactionCached = cached !== undefined;
    }
    return round;
  }

  /** `decide` on what the round read and what the last conflict taught. */
  private decide(round: Round, known: Known): Decision {
    const exists = known.transactionExistsUnder !== undefined && known.transactionExistsUnder === round.order?.etag;
    return decide({
      source: round.source === 'parked' ? 'parked' : 'message',
      entry: round.entry,
      hash: round.hash,
      order: round.order?.doc,
      record: round.record === undefined ? undefined : (round.record?.doc ?? null),
      ...(round.transaction !== undefined && { transaction: round.transaction?.doc ?? null }),
      ...(exists && { transactionExists: true }),
    });
  }

  /** The write of a decision, if it writes anything. */
  private writeOf(decision: Decision, round: Round): OrderWrite | undefined {
    const record = round.record && round.record.doc.status !== EntryStatus.Applied ? round.record : undefined;
    return writeFor(
      decision,
      {
        entry: round.entry,
        hash: round.hash,
        origin: round.origin,
        order: round.order,
        record,
        transaction: round.transaction ?? undefined,
      },
      { now: new Date(this.clock.now()).toISOString(), consumer: this.deps.options.consumerName },
    );
  }

  /**
   * Commits `write`, keeping the cache true to what it left (see {@link OrderCache.afterCommit}): `committed`, or what
   * the conflict taught the next round. A busy store or an unknown outcome throws, for rule 8.
   */
  private async commit(
    orderId: string,
    write: OrderWrite,
    cache: OrderCache,
  ): Promise<'committed' | Pick<Known, 'record' | 'transactionExistsUnder'>> {
    let outcome;
    try {
      outcome = await this.deps.store.commit(orderId, write);
    } catch (error) {
      cache.afterCommit(orderId, write, undefined);
      throw error;
    }
    cache.afterCommit(orderId, write, outcome);
    switch (outcome.kind) {
      case 'committed':
        return 'committed';
      case 'keySeen':
        return { record: outcome.record };
      case 'transactionExists':
        return { transactionExistsUnder: write.order.etag ?? '' };
      case 'orderChanged':
        return {};
      case 'transient':
        throw new StoreError(CoreErrorCode.StoreTransient, outcome.reason, {
          retryAfterMs: outcome.retryAfterMs,
          throttled: outcome.throttled,
        });
      case 'unknown':
        throw new StoreError(CoreErrorCode.StoreOutcomeUnknown, outcome.reason);
    }
  }

  /** The round of an owed `ParkedEntryRejected` alert: its description is read from the rejected entry's record. */
  private owedAlert(
    order: Stored<OrderDocument>,
    rejected: OrderDocument['rejected'][number],
    record: Stored<EntryRecord> | null,
  ): Round {
    const details = rejectedDetails(record?.doc);
    const description = details?.description ?? `${rejected.reason} (its record is missing)`;
    const entry = details?.entry ?? ({ orderId: order.doc.orderId } as Entry);
    return {
      source: 'alert',
      entry,
      hash: rejected.requestHash,
      origin: { correlationId: details?.correlationId, messageId: undefined, traceparent: undefined },
      order,
      record,
      orderCached: false,
      transactionCached: false,
      alert: { kind: 'alert', rule: 11, rejected, reason: description },
    };
  }

  /** Raises an owed alert before its mark is written (at least once: a lost mark only repeats it), once per call. */
  private raiseOwed(decision: Extract<Decision, { kind: 'alert' }>, round: Round, subject: Subject): void {
    const { sequence, entryId, reason } = decision.rejected;
    const key = `${sequence}:${entryId}`;
    if (subject.kind !== 'due' || subject.raised.has(key)) return;
    subject.raised.add(key);
    const orderId = round.order?.doc.orderId ?? subject.orderId;
    this.deps.telemetry.alert(AlertName.ParkedEntryRejected, {
      orderId,
      entryId,
      sequence,
      description: decision.reason,
      reason,
    });
  }

  /** One point read of the order, remembered (or forgotten, when nothing of it exists). */
  private async readOrder(orderId: string, cache: OrderCache): Promise<Stored<OrderDocument> | undefined> {
    const read = await this.deps.store.readOrder(orderId);
    if (read) cache.set(orderId, read);
    else cache.delete(orderId);
    return read;
  }

  /**
   * Rule 8's wait, the one place it is: after a busy store, an unknown outcome or an order that kept changing, backs
   * off while the wait still ends by the message's deadline; otherwise, and for any other failure, rethrows. A
   * throttling store (Cosmos 429) only says "later": with a message to keep locked, it is waited out as its
   * `retryAfterMs` says, however long, renewing the lock as it goes, and never spends a delivery; the whole instance
   * holds off with it ({@link holdOffWhileThrottled}).
   */
  private async backOff(error: unknown, attempt: number, deadline: Deadline, subject: Subject): Promise<void> {
    const { options, telemetry } = this.deps;
    const keys = subject.kind === 'message' ? subject.entry : { orderId: subject.orderId };
    const { keepLock } = deadline;
    const patient = keepLock !== undefined && isThrottled(error);
    if (patient) await keepLock();
    return waitToRetry(error, attempt, {
      deadline: deadline.at,
      retryable: (e) =>
        errorCode(e) === CoreErrorCode.StoreTransient || errorCode(e) === CoreErrorCode.StoreOutcomeUnknown,
      patient: () => patient,
      maxPatientDelayMs: this.lockRenewalIntervalMs(),
      baseDelayMs: options.retryBaseDelayMs,
      maxDelayMs: options.retryMaxDelayMs,
      random: this.deps.random,
      clock: this.clock,
      sleep: this.sleep,
      onRetry: (e, n, delayMs) => {
        telemetry.count(CounterName.StoreRetries, { cause: patient ? 'throttled' : 'transient' });
        if (isThrottled(e)) this.throttledUntil = Math.max(this.throttledUntil, this.clock.now() + delayMs);
        const { entryId, sequence } = keys as Partial<Entry>;
        const fields = { orderId: keys.orderId, entryId, sequence, code: errorCode(e), attempt: n, delayMs };
        telemetry.log('warn', patient ? 'store throttled, waiting' : 'transient store failure, retrying', fields);
      },
    });
  }

  /**
   * Holds a step off while the store asked this instance to wait: the Functions host gives an app no say in how many
   * sessions it holds, so while throttled an instance's slots wait together on the store's hint (each still holding
   * its session, so none is accepted in their place) instead of each asking again and being refused.
   */
  private async holdOffWhileThrottled(): Promise<void> {
    const wait = this.throttledUntil - this.clock.now();
    if (wait > 0) await this.sleep(wait);
  }

  /** How often a message waiting out a throttling store renews its lock: a third of the lock duration. */
  private lockRenewalIntervalMs(): number {
    return Math.floor((this.deps.options.ordersQueue?.lockDurationMs ?? DEFAULT_LOCK_DURATION_MS) / 3);
  }

  /**
   * Renews a waiting message's lock at its first throttled wait (the host's own renewal ends
   * `maxAutoLockRenewalDuration` after the session's accept, and may already have) and then every
   * {@link lockRenewalIntervalMs}, so the lock outlasts any throttling.
   */
  private lockKeeper(settlement: MessageSettlement): () => Promise<void> {
    let renewedAt: number | undefined;
    return async () => {
      if (renewedAt !== undefined && this.clock.now() - renewedAt < this.lockRenewalIntervalMs()) return;
      await settlement.renewLock();
      renewedAt = this.clock.now();
    };
  }
}
