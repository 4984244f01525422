import { DeadLetterReason } from '../deadLetterReasons.js';
import type { AppliedEntryDocument } from '../documents/appliedEntryDocument.js';
import type { InboxRecord, InboxStatus } from '../documents/inboxRecord.js';
import type { OrderDocument } from '../documents/orderDocument.js';
import { AlertName } from '../ports/telemetry.js';
import type { Entry } from '../schemas/entry.js';

/** A decision that needs no write: the entry was seen (rules 2, 4) or must be dead-lettered. */
export type Verdict =
  | { kind: 'duplicate'; seenAs: InboxStatus }
  | { kind: 'deadLetter'; reason: DeadLetterReason; description: string; alert?: AlertName };

/** Rules 2 and 3: the inbox record of this `entryId` decides by its hash. */
export function verdictFromInbox(inbox: InboxRecord, entry: Entry, hash: string): Verdict {
  if (inbox.requestHash === hash) return { kind: 'duplicate', seenAs: inbox.status };
  return keyConflict(entry, `the ${inbox.status} entry at sequence ${inbox.sequence} has another hash`);
}

/**
 * Rule 4, for `sequence <= lastSequence` without an inbox record (it expired): the permanent applied record of
 * this `entryId` decides. Applied sequences are dense, so without a record for this `entryId` the sequence was
 * applied from another entry.
 */
export function verdictFromHistory(applied: AppliedEntryDocument | undefined, entry: Entry, hash: string): Verdict {
  if (!applied) {
    return sequenceConflict(entry, `sequence ${entry.sequence} of order ${entry.orderId} was already applied from another entry`);
  }
  if (applied.sequence !== entry.sequence) return appliedElsewhere(entry, applied);
  return applied.requestHash === hash
    ? { kind: 'duplicate', seenAs: 'applied' }
    : keyConflict(entry, `sequence ${entry.sequence} was applied from this entryId with another hash`);
}

/** Rule 3 at the door: this `entryId` was applied at another sequence (its inbox record has expired). */
export function appliedElsewhere(entry: Entry, applied: Pick<AppliedEntryDocument, 'sequence'>): Verdict {
  return keyConflict(entry, `it was applied at sequence ${applied.sequence}, not ${entry.sequence}`);
}

/**
 * Rule 3 at the door, from the order document alone: this `entryId` is parked or rejected at another sequence.
 * Parking it again would hold two sequences under one key, and the inbox record of one would be taken for the
 * other's.
 */
export function verdictFromOtherSequence(doc: OrderDocument, entry: Entry): Verdict | undefined {
  const elsewhere = (r: { entryId: string; sequence: number }) => r.entryId === entry.entryId && r.sequence !== entry.sequence;
  const parked = doc.parked.find(elsewhere);
  if (parked) return keyConflict(entry, `it is parked at sequence ${parked.sequence}, not ${entry.sequence}`);
  const rejected = doc.rejected.find(elsewhere);
  if (rejected) return keyConflict(entry, `it was rejected at sequence ${rejected.sequence}, not ${entry.sequence}`);
  return undefined;
}

/** Rule 4's last sentence, for a sequence that is parked, when the inbox holds nothing for this `entryId`. */
export function verdictFromParked(doc: OrderDocument, entry: Entry, hash: string): Verdict {
  const parked = doc.parked.find((p) => p.sequence === entry.sequence);
  if (parked?.entryId === entry.entryId) {
    return parked.requestHash === hash
      ? { kind: 'duplicate', seenAs: 'parked' }
      : keyConflict(entry, `the entry parked at sequence ${entry.sequence} has another hash`);
  }
  const other = parked ? `entry ${parked.entryId}` : 'another entry';
  return sequenceConflict(entry, `sequence ${entry.sequence} of order ${entry.orderId} is parked for ${other}`);
}

/** Rule 3: the `entryId` is reused with other content. */
export function keyConflict(entry: Entry, why: string): Verdict {
  return {
    kind: 'deadLetter',
    reason: DeadLetterReason.IdempotencyKeyConflict,
    description: `entryId ${entry.entryId} was seen with other content: ${why}`,
    alert: AlertName.IdempotencyKeyConflict,
  };
}

function sequenceConflict(entry: Entry, description: string): Verdict {
  return { kind: 'deadLetter', reason: DeadLetterReason.SequenceConflict, description, alert: AlertName.SequenceConflict };
}
