/**
 * The order processor's rules (docs/architecture.md, "Processing rules"), as one decision: given an entry, the order
 * as last read and what the store knows about the entry's key, what happens to the entry. Pure; evaluated in the
 * order (a)–(e) the rules are written in:
 *
 *   (a) rule 6 · (b) inbox lookup → rules 2/3 · (c) `sequence <= lastSequence` → rule 4 ·
 *   (d) gap: on a deleted order → rule 7, else rule 5 · (e) rule 7 · else rule 1.
 *
 * A parked entry whose turn has come (the drain) goes through the same function: its inbox record is its own, so it
 * is not looked up, and what a message would dead-letter becomes a rejection (rule 11). Rule 8 (transient failures)
 * is how the processor runs these decisions (`orderProcessor.ts`); rule 9 is the splitter's.
 */
import { DeadLetterReason } from '../deadLetterReasons.js';
import type { InboxStatus } from '../documents/inboxRecord.js';
import type { OrderDocument } from '../documents/orderDocument.js';
import type { TransactionDocument } from '../documents/transactionDocument.js';
import { OrderStatus, initialOrderState, type OrderState } from '../order/orderState.js';
import { applyTransition, type EntryChange, type TransactionFacts } from '../order/transition.js';
import type { KeySeen, Stored } from '../ports/orderStore.js';
import { AlertName } from '../ports/telemetry.js';
import type { Entry } from '../schemas/entry.js';
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

/** What {@link decide} knows. */
export interface Facts {
  /** A message (`message`) or a parked entry whose turn has come (`parked`, by the drain). */
  source: 'message' | 'parked';
  entry: CheckedEntry;
  /** The message's session, which must be the entry's order (rule 6). */
  sessionId?: string | undefined;
  /** The order as last read; `null`: nothing of it exists yet; `undefined`: not read yet. */
  order: OrderDocument | null | undefined;
  /** What the store said about the entry's key so far; nothing looked up yet is `{}`. */
  seen: KeySeen;
  /** Attempt tokens of this message's own writes whose outcome was unknown (see `InboxRecord.attempt`). */
  ownAttempts?: ReadonlySet<string>;
  /** For a `TransactionAmended`: its transaction as read; `null`: the order has none of that id; `undefined`: not read. */
  transaction?: Stored<TransactionDocument> | null;
  /** For a `TransactionAdded`: its write met an existing transaction of that id, under the order as read. */
  transactionExists?: boolean;
}

/** The processing rules, by number (docs/architecture.md, "Processing rules"). */
export type Rule = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 11;

/** What happens to the entry, with the rule that says so and a one-line reason. */
export type Decision =
  /** Rule 1: the next sequence, valid for the order: write it (inbox, applied record, order, transaction, outbox). */
  | { kind: 'apply'; rule: 1; state: OrderState; change: EntryChange; reason: string }
  /** Rule 5: a gap before it: park it durably (inbox record `parked`, its own document). */
  | { kind: 'park'; rule: 5; reason: string }
  /** Rules 1/5: this message's own earlier write, whose reply was lost, went through. */
  | { kind: 'committed'; rule: 1 | 5; as: InboxStatus; reason: string }
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
  /** Not decidable yet: read the order, a record of the entry's key, or the transaction it amends; then decide again. */
  | { kind: 'lookUp'; record: LookUp; reason: string };

/** What {@link decide} may ask to read. */
export type LookUp = 'order' | 'inbox' | 'applied' | 'transaction';

/** The decision on one entry. */
export function decide(facts: Facts): Decision {
  const { entry: checked, seen, source } = facts;
  // (a) Rule 6: not an entry of this session's order. Settled at once; a readable sequence of the same order holds it.
  if (!checked.valid)
    return deadLetter(6, DeadLetterReason.SchemaValidationFailed, checked.why, { holds: checked.sequence });
  const { entry, hash } = checked;
  if (source === 'message' && entry.orderId !== facts.sessionId) {
    return deadLetter(
      6,
      DeadLetterReason.SchemaValidationFailed,
      `orderId ${entry.orderId} differs from the session ${String(facts.sessionId)}`,
    );
  }
  if (facts.order === undefined) return lookUp('order', `entry ${entry.entryId} is decided against its order`);
  const order = facts.order ?? undefined;
  const lastSequence = order?.lastSequence ?? 0;

  if (source === 'parked') return decideParked(entry, order, facts);

  // (b) Rules 2/3: the inbox record of this entryId decides by its hash. An entry that would be written is not looked
  // up first: the write's inbox create is the lookup (it fails with `keySeen` when a record exists).
  const inbox = seen.inbox;
  if (inbox) {
    if (
      inbox.doc.attempt !== undefined &&
      facts.ownAttempts?.has(inbox.doc.attempt) &&
      inbox.doc.requestHash === hash
    ) {
      const rule = inbox.doc.status === 'parked' ? 5 : 1;
      return {
        kind: 'committed',
        rule,
        as: inbox.doc.status,
        reason: `this message's earlier write of sequence ${entry.sequence}, whose reply was lost, went through`,
      };
    }
    if (inbox.doc.requestHash === hash)
      return duplicate(2, `entry ${entry.entryId} was ${inbox.doc.status} before with the same content`);
    return keyConflict(
      entry,
      `the ${inbox.doc.status} entry at sequence ${inbox.doc.sequence} has another hash`,
      lastSequence,
    );
  }
  // Rule 3 at the door: this entryId was applied, parked or rejected at another sequence (its inbox record expired).
  if (seen.applied && seen.applied.sequence !== entry.sequence) {
    return afterInbox(
      seen,
      keyConflict(entry, `it was applied at sequence ${seen.applied.sequence}, not ${entry.sequence}`, lastSequence),
    );
  }

  // (c) Rule 4: an applied sequence. Without its inbox record, the permanent applied record of this entryId decides;
  // applied sequences are dense, so none means the sequence was applied from another entry.
  if (entry.sequence <= lastSequence) {
    if (seen.inbox === undefined) return lookUp('inbox', `sequence ${entry.sequence} is applied (rule 4)`);
    if (seen.applied === undefined)
      return lookUp('applied', `sequence ${entry.sequence} is applied and its inbox record is gone (rule 4)`);
    if (seen.applied === null) {
      return sequenceConflict(
        `sequence ${entry.sequence} of order ${entry.orderId} was already applied from another entry`,
      );
    }
    return seen.applied.requestHash === hash
      ? duplicate(4, `sequence ${entry.sequence} was applied from this entry with the same content`)
      : keyConflict(entry, `sequence ${entry.sequence} was applied from this entryId with another hash`, lastSequence);
  }
  const elsewhere = order && listedElsewhere(order, entry);
  if (elsewhere) return afterInbox(seen, keyConflict(entry, elsewhere, lastSequence));
  // Rule 4's last sentence: a parked sequence is applied by the drain, never over; another entry there conflicts.
  const parked = order?.parked.find((p) => p.sequence === entry.sequence);
  if (parked) {
    if (parked.entryId !== entry.entryId) {
      return afterInbox(
        seen,
        sequenceConflict(`sequence ${entry.sequence} of order ${entry.orderId} is parked for entry ${parked.entryId}`),
      );
    }
    return afterInbox(
      seen,
      parked.requestHash === hash
        ? duplicate(2, `entry ${entry.entryId} is parked at sequence ${entry.sequence} with the same content`)
        : keyConflict(entry, `the entry parked at sequence ${entry.sequence} has another hash`, lastSequence),
    );
  }

  const state = order?.state ?? initialOrderState();
  const deleted = state.status === OrderStatus.Deleted;
  if (entry.sequence > lastSequence + 1) {
    // (d) A gap. Nothing can ever fill a deleted order's gap (rule 7, whose transition says why); otherwise park
    // (rule 5), within the bound.
    const afterDelete = deleted ? applyTransition(state, entry) : undefined;
    if (afterDelete && !afterDelete.ok) return afterInbox(seen, invalidTransition(afterDelete.error.message));
    if ((order?.parked.length ?? 0) >= ORDER_MAX_PARKED) {
      const why =
        `Order ${entry.orderId} already holds ${ORDER_MAX_PARKED} parked entries, the most an order may hold; ` +
        `sequence ${entry.sequence} cannot park behind the gap at ${lastSequence + 1}`;
      return afterInbox(seen, invalidTransition(why, entry.sequence));
    }
    // An entryId applied before (its inbox record expired) must not park at another sequence: rule 3 at the door.
    if (seen.applied === undefined)
      return lookUp('applied', `entry ${entry.entryId} would park at sequence ${entry.sequence}`);
    return { kind: 'park', rule: 5, reason: `sequence ${entry.sequence} waits for ${lastSequence + 1}` };
  }

  // (e) Rule 7: the next sequence, but impossible for the order's state (it holds the order, unless deleted). Else rule 1.
  // An amendment of an open order reads its transaction first (its amount makes the new total).
  if (amendsUnread(entry, state, facts))
    return lookUp('transaction', `entry ${entry.entryId} amends transaction ${entry.data.transactionId}`);
  const transition = applyTransition(state, entry, transactionFacts(facts));
  if (!transition.ok)
    return afterInbox(seen, invalidTransition(transition.error.message, deleted ? undefined : entry.sequence));
  return {
    kind: 'apply',
    rule: 1,
    state: transition.state,
    change: transition.change,
    reason: `sequence ${entry.sequence} follows ${lastSequence}`,
  };
}

/** Whether `entry` amends a transaction of an open order that has not been read yet. */
function amendsUnread(
  entry: Entry,
  state: OrderState,
  facts: Facts,
): entry is Extract<Entry, { type: 'TransactionAmended' }> {
  return entry.type === 'TransactionAmended' && state.status === OrderStatus.Open && facts.transaction === undefined;
}

/** What the store said of the entry's transaction, for the state machine. */
function transactionFacts(facts: Facts): TransactionFacts {
  return {
    ...(facts.transactionExists === true && { exists: true }),
    ...(facts.transaction !== undefined && { current: facts.transaction && { amount: facts.transaction.doc.amount } }),
  };
}

/**
 * A parked entry whose turn has come (the order's next sequence, or any parked one of a deleted order): applied
 * (rule 1), or rejected (rule 11) when it is now impossible. Rejecting deletes its own inbox record, so a corrected
 * resubmission is not taken for a conflict: that record is looked up first.
 */
function decideParked(entry: Entry, order: OrderDocument | undefined, facts: Facts): Decision {
  const { seen } = facts;
  const state = order?.state ?? initialOrderState();
  const reject = (deadLetterReason: DeadLetterReason, reason: string): Decision => {
    if (seen.inbox === undefined)
      return lookUp('inbox', `parked entry ${entry.entryId} is rejected and its own inbox record goes with it`);
    const holds = state.status === OrderStatus.Deleted ? {} : { holds: entry.sequence };
    return { kind: 'reject', rule: 11, deadLetterReason, reason, ...holds };
  };
  // Its entryId was applied at another sequence (its inbox record had expired when it was parked).
  if (seen.applied && seen.applied.sequence !== entry.sequence) {
    return reject(
      DeadLetterReason.IdempotencyKeyConflict,
      `entryId ${entry.entryId} was seen with other content: it was already applied at another sequence`,
    );
  }
  if (amendsUnread(entry, state, facts))
    return lookUp('transaction', `parked entry ${entry.entryId} amends transaction ${entry.data.transactionId}`);
  const transition = applyTransition(state, entry, transactionFacts(facts));
  if (!transition.ok) return reject(DeadLetterReason.InvalidTransition, transition.error.message);
  return {
    kind: 'apply',
    rule: 1,
    state: transition.state,
    change: transition.change,
    reason: `parked sequence ${entry.sequence} is due`,
  };
}

/** (b) comes first: a decision that writes nothing stands only once the inbox was looked up and had no record. */
function afterInbox(seen: KeySeen, decision: Decision): Decision {
  return seen.inbox === undefined ? lookUp('inbox', decision.reason) : decision;
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

function lookUp(record: LookUp, why: string): Decision {
  return {
    kind: 'lookUp',
    record,
    reason: `read the ${record === 'order' || record === 'transaction' ? record : `${record} record`}: ${why}`,
  };
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
  return {
    kind: 'deadLetter',
    rule,
    deadLetterReason,
    reason,
    ...(more.alert !== undefined && { alert: more.alert }),
    ...(more.holds !== undefined && { holds: more.holds }),
  };
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
