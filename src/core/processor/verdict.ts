import { DeadLetterReason } from '../deadLetterReasons.js';
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
 * Rule 4, for `sequence <= lastSequence` without an inbox record (it expired): the order's history decides.
 */
export function verdictFromHistory(doc: OrderDocument, entry: Entry, hash: string): Verdict {
  // The history is dense and ascending, so the record is normally at index sequence - 1.
  const candidate = doc.applied[entry.sequence - 1];
  const applied = candidate?.sequence === entry.sequence ? candidate : doc.applied.find((a) => a.sequence === entry.sequence);
  if (applied?.entryId === entry.entryId) {
    return applied.requestHash === hash
      ? { kind: 'duplicate', seenAs: 'applied' }
      : keyConflict(entry, `sequence ${entry.sequence} was applied from this entryId with another hash`);
  }
  const other = applied ? `entry ${applied.entryId}` : 'another entry';
  return sequenceConflict(entry, `sequence ${entry.sequence} of order ${entry.orderId} was already applied from ${other}`);
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
