/**
 * The processing rules (docs/architecture.md, "Processing rules"), pure: what a message brings (rule 6's input: its
 * body normalised, checked and hashed), and what one entry means given what the step has read — the order, the
 * entry's record, the transaction an amendment names. Evaluated in the order (a)–(e); each decision names its rule.
 * Nothing is read from here: the processor reads first (see `OrderProcessor`), and a decision that cannot be taken
 * back stands only on what {@link standsOnWhatWasRead} accepts.
 */
import { DeadLetterReason } from '../deadLetterReasons.js';
import { readResubmitCount, requestHash } from '../hash.js';
import { normaliseBody } from '../schemas/body.js';
import { validateEntry } from '../schemas/ledger.js';
import { messageTraceparent } from '../traceContext.js';
import { EntryStatus, type EntryRecord } from '../documents/entryRecord.js';
import type { OrderDocument, RejectedRecord } from '../documents/orderDocument.js';
import { OrderStatus, initialOrderState, type OrderState } from '../order/orderState.js';
import { applyTransition } from '../order/transition.js';
import { AlertName } from '../ports/telemetry.js';
import type { TransactionFacts, TransactionWrite } from '../entryTypes/entryType.js';
import { entryTypeOf, type Entry, type EntryChange } from '../entryTypes/registry.js';
import { ORDER_MAX_PARKED } from '../schemas/limits.js';

/** An entry as validation left it (rule 6's input): valid with its request hash, or why it is not. */
export type CheckedEntry =
  | { valid: true; entry: Entry; hash: string }
  | {
      valid: false;
      /** Why the message is not an entry of its session's order. */
      why: string;
      /** The sequence, when the body names it and names the message's session: the entry then holds it (rule 10). */
      sequence: number | undefined;
    };

/** Where an entry came from; carried into its record for tracing and resubmission. */
export interface EntryOrigin {
  correlationId: string | undefined;
  messageId: string | undefined;
  /** W3C `traceparent` of the message (see `messageTraceparent`), when it carried one. */
  traceparent: string | undefined;
  /** The message's `resubmitCount` application property (see `readResubmitCount`); absent = 0. */
  resubmitCount?: number | undefined;
}

/** A message as the host received it, whatever the host. */
export interface ReceivedOrderMessage {
  /** Object, string, `Buffer`/`Uint8Array`/`ArrayBuffer`: normalised before validating and hashing. */
  body: unknown;
  messageId?: string;
  sessionId?: string;
  correlationId?: string;
  applicationProperties?: Readonly<Record<string, unknown>>;
  deliveryCount?: number;
}

/** The keys logs and results name a message by: from the body where it has them. */
export interface MessageKeys {
  orderId: string | undefined;
  entryId: string | undefined;
  sequence: number | undefined;
}

/**
 * Validates `message`'s body as an entry and hashes it; whether the entry belongs to the message's session is
 * rule 6's to decide ({@link notOfSession}).
 */
export function checkMessage(message: ReceivedOrderMessage): {
  entry: CheckedEntry;
  keys: MessageKeys;
  origin: EntryOrigin;
} {
  const origin: EntryOrigin = {
    correlationId: message.correlationId,
    messageId: message.messageId,
    // Kept on the entry's documents, so the outbox continues this message's trace.
    traceparent: messageTraceparent(message.applicationProperties),
    resubmitCount: readResubmitCount(message.applicationProperties),
  };
  const validated = validateEntry(message.body);
  if (validated.ok) {
    const entry = validated.value;
    return {
      entry: { valid: true, entry, hash: requestHash(entry) },
      keys: { orderId: entry.orderId, entryId: entry.entryId, sequence: entry.sequence },
      origin,
    };
  }
  // Best-effort keys of an invalid message: from the body where it is JSON and has them, else the session, the
  // `messageId` (the dedup key of a body that cannot be parsed) and the `sequence` application property.
  const parsed = normaliseBody(message.body);
  const body =
    parsed.ok && typeof parsed.value === 'object' && parsed.value !== null
      ? (parsed.value as Record<string, unknown>)
      : {};
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const int = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined);
  const orderId = text(body.orderId);
  const sequence = int(body.sequence);
  const why = validated.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
  // Rule 10: an entry whose sequence can't be read, or that names another order than its session, holds nothing.
  const ofSession = orderId === message.sessionId && message.sessionId !== undefined;
  return {
    entry: { valid: false, why, sequence: ofSession ? sequence : undefined },
    keys: {
      orderId: orderId ?? message.sessionId,
      entryId: text(body.entryId) ?? message.messageId,
      sequence: sequence ?? int(message.applicationProperties?.sequence),
    },
    origin,
  };
}

/**
 * What {@link decide} knows about one valid entry; with what the store said of the transaction its type reads
 * ({@link transactionToRead}: `current`, as read) or creates (`exists`: the entry's write met one, under the order as
 * read).
 */
export interface Facts extends TransactionFacts {
  /** A message (`message`) or a parked entry whose turn has come (`parked`, by the drain). */
  source: 'message' | 'parked';
  entry: Entry;
  hash: string;
  /** The order as read; `undefined`: nothing of it exists yet. */
  order: OrderDocument | undefined;
  /** The entry's record as read; `null`: none; `undefined`: not read (the write's create is the lookup). */
  record: EntryRecord | null | undefined;
}

/** The processing rules, by number. */
export type Rule = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 11;

/** What happens to the entry, with the rule that says so and a one-line reason. */
export type Decision =
  /** Rule 1: the next sequence, valid for the order: write it (its record with the event, the order, the transaction). */
  | {
      kind: 'apply';
      rule: 1;
      state: OrderState;
      change: EntryChange;
      transaction?: TransactionWrite;
      reason: string;
    }
  /** Rule 5: a gap before it: park it durably (its record, status `parked`). */
  | { kind: 'park'; rule: 5; reason: string }
  /** Rules 2/4: seen before with the same content: complete it, count it. */
  | { kind: 'duplicate'; rule: 2 | 4; reason: string }
  /**
   * Rules 3, 4, 6, 7: dead-letter it. `holds` (rule 10): the order now waits at this sequence, since the entry was
   * not applied and is never recorded as seen, until a corrected entry with this sequence arrives.
   */
  | {
      kind: 'deadLetter';
      rule: 3 | 4 | 6 | 7;
      deadLetterReason: DeadLetterReason;
      alert?: AlertName;
      holds?: number;
      reason: string;
    }
  /** Rule 11: a parked entry that turned out invalid: move it to `rejected`; the order waits at its sequence (rule 10). */
  | { kind: 'reject'; rule: 11; deadLetterReason: DeadLetterReason; holds?: number; reason: string }
  /** Rule 11's alert, owed by a rejection: raise it and mark it raised on the order. */
  | { kind: 'alert'; rule: 11; rejected: RejectedRecord; reason: string };

/** (a) Rule 6: a message that is not an entry of its session's order; `undefined` when it is one. */
export function notOfSession(checked: CheckedEntry, sessionId: string | undefined): Decision | undefined {
  // Settled at once; a readable sequence of the same order holds it.
  if (!checked.valid)
    return deadLetter(6, DeadLetterReason.SchemaValidationFailed, checked.why, { holds: checked.sequence });
  if (checked.entry.orderId === sessionId) return undefined;
  return deadLetter(
    6,
    DeadLetterReason.SchemaValidationFailed,
    `orderId ${checked.entry.orderId} differs from the session ${String(sessionId)}`,
  );
}

/** The decision on one valid entry of its session's order, (b)–(e). */
export function decide(facts: Facts): Decision {
  const { entry, hash, order } = facts;
  if (facts.source === 'parked') return decideParked(facts);
  const lastSequence = order?.lastSequence ?? 0;

  // (b) Rules 2/3: the entry's record decides by its hash (sequence and content are both in it). A rejected entry
  // counts as not seen, so its corrected resubmission is no conflict.
  const record = facts.record && facts.record.status !== EntryStatus.Rejected ? facts.record : undefined;
  if (record) {
    if (record.requestHash === hash)
      return duplicate(2, `entry ${entry.entryId} was ${record.status} before with the same content`);
    const why =
      record.sequence === entry.sequence
        ? `the ${record.status} entry at sequence ${entry.sequence} has another hash`
        : `it is ${record.status} at sequence ${record.sequence}, not ${entry.sequence}`;
    return keyConflict(entry, why, lastSequence);
  }

  // (c) Rule 4: an applied sequence this entry has no record for was applied from another entry (applied sequences
  // are dense, and every applied entry keeps its record).
  if (entry.sequence <= lastSequence) {
    return sequenceConflict(
      `sequence ${entry.sequence} of order ${entry.orderId} was already applied from another entry`,
    );
  }
  // Rule 3 at the door, from the order's indexes: this entryId is parked or rejected at another sequence.
  const elsewhere = order && listedElsewhere(order, entry);
  if (elsewhere) return keyConflict(entry, elsewhere, lastSequence);
  // Rule 4's last sentence: a parked sequence is applied by the drain, never over; another entry there conflicts.
  const parked = order?.parked.find((p) => p.sequence === entry.sequence);
  if (parked) {
    if (parked.entryId !== entry.entryId)
      return sequenceConflict(
        `sequence ${entry.sequence} of order ${entry.orderId} is parked for entry ${parked.entryId}`,
      );
    return parked.requestHash === hash
      ? duplicate(2, `entry ${entry.entryId} is parked at sequence ${entry.sequence} with the same content`)
      : keyConflict(entry, `the entry parked at sequence ${entry.sequence} has another hash`, lastSequence);
  }

  const state = order?.state ?? initialOrderState();
  const deleted = state.status === OrderStatus.Deleted;
  if (entry.sequence > lastSequence + 1) {
    // (d) A gap. Nothing can ever fill a deleted order's gap (rule 7, whose transition says why); otherwise park
    // (rule 5), within the bound.
    const afterDelete = deleted ? applyTransition(state, entry) : undefined;
    if (typeof afterDelete === 'string') return invalidTransition(afterDelete);
    if ((order?.parked.length ?? 0) >= ORDER_MAX_PARKED) {
      const why =
        `Order ${entry.orderId} already holds ${ORDER_MAX_PARKED} parked entries, the most an order may hold; ` +
        `sequence ${entry.sequence} cannot park behind the gap at ${lastSequence + 1}`;
      return invalidTransition(why, entry.sequence);
    }
    return { kind: 'park', rule: 5, reason: `sequence ${entry.sequence} waits for ${lastSequence + 1}` };
  }

  // (e) Rule 7: the next sequence, but impossible for the order's state (it holds the order, unless deleted). Else rule 1.
  const applied = applyTransition(state, entry, facts);
  if (typeof applied === 'string') return invalidTransition(applied, deleted ? undefined : entry.sequence);
  return { kind: 'apply', rule: 1, ...applied, reason: `sequence ${entry.sequence} follows ${lastSequence}` };
}

/**
 * The `transactionId` the step must read before deciding: the transaction the entry's type reads, when the order is
 * open and the entry at its turn. Anything else is decided without a read.
 */
export function transactionToRead(entry: Entry, order: OrderDocument | undefined): string | undefined {
  if (order?.state.status !== OrderStatus.Open || entry.sequence !== order.lastSequence + 1) return undefined;
  return entryTypeOf(entry.type)?.reads?.(entry);
}

/**
 * A parked entry whose turn has come (the order's next sequence, or any parked one of a deleted order): applied
 * (rule 1), or rejected (rule 11) when it is now impossible.
 */
function decideParked(facts: Facts): Decision {
  const { entry, order } = facts;
  const state = order?.state ?? initialOrderState();
  const applied = applyTransition(state, entry, facts);
  if (typeof applied === 'string') {
    const holds = state.status === OrderStatus.Deleted ? {} : { holds: entry.sequence };
    return {
      kind: 'reject',
      rule: 11,
      deadLetterReason: DeadLetterReason.InvalidTransition,
      reason: applied,
      ...holds,
    };
  }
  return { kind: 'apply', rule: 1, ...applied, reason: `parked sequence ${entry.sequence} is due` };
}

/** Rule 3 at the door, from the order document: this entryId is parked or rejected at another sequence. */
function listedElsewhere(order: OrderDocument, entry: Entry): string | undefined {
  const elsewhere = (r: { entryId: string; sequence: number }) =>
    r.entryId === entry.entryId && r.sequence !== entry.sequence;
  const parked = order.parked.find(elsewhere);
  if (parked) return `it is parked at sequence ${parked.sequence}, not ${entry.sequence}`;
  const rejected = order.rejected.find(elsewhere);
  return rejected ? `it was rejected at sequence ${rejected.sequence}, not ${entry.sequence}` : undefined;
}

function duplicate(rule: 2 | 4, reason: string): Decision {
  return { kind: 'duplicate', rule, reason };
}

function deadLetter(
  rule: 3 | 4 | 6 | 7,
  deadLetterReason: DeadLetterReason,
  reason: string,
  more: { alert?: AlertName; holds?: number | undefined } = {},
): Decision {
  return { kind: 'deadLetter', rule, deadLetterReason, reason, ...more };
}

/**
 * Rule 3: the entryId is reused with other content. A conflict on an applied sequence holds nothing (rule 10); at a
 * sequence not applied yet, the order waits there.
 */
function keyConflict(entry: Entry, why: string, lastSequence: number): Decision {
  return deadLetter(
    3,
    DeadLetterReason.IdempotencyKeyConflict,
    `entryId ${entry.entryId} was seen with other content: ${why}`,
    {
      alert: AlertName.IdempotencyKeyConflict,
      holds: entry.sequence > lastSequence ? entry.sequence : undefined,
    },
  );
}

/** Rule 4: another entry holds this sequence (applied or parked); the order goes on (rule 10). */
function sequenceConflict(reason: string): Decision {
  return deadLetter(4, DeadLetterReason.SequenceConflict, reason, { alert: AlertName.SequenceConflict });
}

/** Rule 7, holding the order at `holds` (rule 10) where it could otherwise go on. */
function invalidTransition(reason: string, holds?: number): Decision {
  return deadLetter(7, DeadLetterReason.InvalidTransition, reason, { holds });
}

/** What a step's round read, as far as whether a decision may stand on it. */
export interface ReadBasis {
  /** A message's entry, a parked one at its turn, or an owed alert. */
  source: 'message' | 'parked' | 'alert';
  /** The entry's record as read: `undefined` when not read. */
  record: { doc: EntryRecord } | null | undefined;
  /** Whether the order, or the transaction, came from the cache (no read of this round vouches for it). */
  orderCached: boolean;
  transactionCached: boolean;
}

/**
 * Whether a decision may stand on what its round read. A write under ETags is checked by the store; but a dead letter,
 * a duplicate or a rejection cannot be taken back, and no ETag guards what it rests on: a message's stands on its own
 * record (rules 2/3 decide from it alone) or on the order read now with the entry's record looked up; a rejection, on
 * a transaction read now (its order is replaced under its ETag).
 */
export function standsOnWhatWasRead(decision: Decision, read: ReadBasis): boolean {
  if (decision.kind === 'reject') return !read.transactionCached;
  if (decision.kind !== 'deadLetter' && decision.kind !== 'duplicate') return true;
  if (read.source === 'message' && read.record && read.record.doc.status !== EntryStatus.Rejected) return true;
  return !read.orderCached && !read.transactionCached && read.record !== undefined;
}
