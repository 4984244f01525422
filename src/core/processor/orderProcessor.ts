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
import { CoreErrorCode, StoreError } from '../errors.js';
import { dueOn } from '../order/followUpCheck.js';
import { systemClock, type Clock } from '../ports/clock.js';
import type { OrderWrite, Stored } from '../ports/orderStore.js';
import { AlertName, CounterName } from '../ports/telemetry.js';
import type { Entry } from '../entryTypes/registry.js';
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
  endingOf,
  logFailure,
  releaseAfter,
  reportResult,
  settle,
  type DrainReport,
  type Ending,
  type OrderProcessorDeps,
  type ProcessContext,
  type ProcessResult,
} from './processResult.js';
import { ThrottledWait, type Deadline } from './throttledWait.js';

/** Conflicts in a row ("the order changed → read again → decide again") before a step backs off like a busy store. */
const MAX_CONFLICT_ROUNDS = 5;

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

/** Processes `orders` messages; never throws for a decision, only when the settlement itself fails. */
export class OrderProcessor {
  private readonly clock: Clock;
  /** Rule 8's wait, shared by the instance's steps (a 429 holds them all off). */
  private readonly wait: ThrottledWait;

  constructor(private readonly deps: OrderProcessorDeps) {
    this.clock = deps.clock ?? systemClock;
    this.wait = new ThrottledWait(deps);
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
      keepLock: this.wait.lockKeeper(context.settlement),
    };
    const ending = await this.handle(checked, message.sessionId, origin, cache, deadline);
    await settle(context.settlement, ending);
    const release = releaseAfter(ending, keys.orderId, cache, message);
    const result: ProcessResult = {
      ...ending,
      ...keys,
      messageId: message.messageId,
      requestHash: checked.valid ? checked.hash : undefined,
      durationMs: this.clock.now() - startedAt,
      ...(release && { releaseSession: release }),
    };
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
  ): Promise<Ending> {
    // (a) Rule 6 settles at once: nothing of the order is read, and nothing follows from it.
    const notOurs = notOfSession(checked, sessionId);
    if (notOurs || !checked.valid) return endingOf(notOurs!);
    const { entry, hash } = checked;
    let decision: Decision;
    try {
      // A message's step always decides (only a step on what is due finds nothing).
      decision = (await this.step({ kind: 'message', entry, hash, origin }, cache, deadline))!;
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
      return endingOf(decision);
    try {
      return endingOf(decision, await this.followUp(entry.orderId, cache, deadline));
    } catch (error) {
      // A dead letter stands (the next message or the gap monitor resumes); anything else is redelivered, and the
      // redelivery meets its record (a duplicate) and follows up again.
      if (decision.kind !== 'deadLetter') return abandoned(this.deps.telemetry, error, entry, 'drain abandoned');
      logFailure(this.deps.telemetry, 'warn', 'drain failed after a dead letter', error, entry);
      return endingOf(decision);
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
      const decision = await this.step({ kind: 'due', orderId, raised }, cache, deadline);
      if (decision === undefined) return { ...report, alerted: raised.size };
      if (decision.kind === 'apply') {
        report.drained++;
        this.deps.telemetry.count(CounterName.EntriesApplied, { via: 'drain' });
      } else if (decision.kind === 'reject') {
        report.rejected++;
        this.deps.telemetry.count(CounterName.ParkedRejected);
      }
    }
  }

  /**
   * One step, straight: read what the entry needs, decide once, write once; on a conflict read again and decide
   * again; on a busy store or an unknown outcome back off (rule 8) and go round. A retry after an unknown outcome
   * meets the entry's own record with the same hash: a duplicate (rule 2). `undefined`: nothing was due.
   */
  private async step(subject: Subject, cache: OrderCache, deadline: Deadline): Promise<Decision | undefined> {
    const orderId = subject.kind === 'message' ? subject.entry.orderId : subject.orderId;
    let known: Known = { fresh: false };
    let conflicts = 0;
    let failures = 0;
    for (;;) {
      try {
        await this.wait.holdOff();
        const round = await this.read(subject, known, cache);
        if (round === 'nothingDue') return undefined;
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
        const stamp = { now: new Date(this.clock.now()).toISOString(), consumer: this.deps.options.consumerName };
        const write = writeFor(decision, round, stamp);
        if (write === undefined) return decision;
        if (decision.kind === 'alert') this.raiseOwed(decision, subject);
        const outcome = await this.commit(orderId, write, cache);
        if (outcome === 'committed') return decision;
        if (++conflicts > MAX_CONFLICT_ROUNDS) {
          conflicts = 0;
          throw new StoreError(CoreErrorCode.StoreTransient, `Order ${orderId} kept changing during the step`);
        }
        known = { fresh: known.fresh, ...outcome };
      } catch (error) {
        const keys = subject.kind === 'message' ? subject.entry : subject;
        await this.wait.backOff(error, failures++, deadline, keys);
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
    return decide({
      source: round.source === 'parked' ? 'parked' : 'message',
      entry: round.entry,
      hash: round.hash,
      order: round.order?.doc,
      record: round.record === undefined ? undefined : (round.record?.doc ?? null),
      ...(round.transaction !== undefined && { current: round.transaction?.doc ?? null }),
      exists: known.transactionExistsUnder !== undefined && known.transactionExistsUnder === round.order?.etag,
    });
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
    const outcome = await this.deps.store.commit(orderId, write).catch((error: unknown) => {
      cache.afterCommit(orderId, write, undefined);
      throw error;
    });
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
    const description = rejectedDetails(record?.doc)?.description ?? `${rejected.reason} (its record is missing)`;
    // Only the order is written (its alert marked): nothing of the entry.
    return {
      source: 'alert',
      entry: { orderId: order.doc.orderId } as Entry,
      hash: rejected.requestHash,
      origin: { correlationId: undefined, messageId: undefined, traceparent: undefined },
      order,
      record,
      orderCached: false,
      transactionCached: false,
      alert: { kind: 'alert', rule: 11, rejected, reason: description },
    };
  }

  /** Raises an owed alert before its mark is written (at least once: a lost mark only repeats it), once per call. */
  private raiseOwed(decision: Extract<Decision, { kind: 'alert' }>, subject: Subject): void {
    const { sequence, entryId, reason } = decision.rejected;
    const key = `${sequence}:${entryId}`;
    if (subject.kind !== 'due' || subject.raised.has(key)) return;
    subject.raised.add(key);
    this.deps.telemetry.alert(AlertName.ParkedEntryRejected, {
      orderId: subject.orderId,
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
}
