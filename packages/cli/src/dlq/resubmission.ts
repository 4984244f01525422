import type { ServiceBusMessage, ServiceBusReceivedMessage } from '@azure/service-bus';
import { validateEntry, type Entry, type Resubmission } from 'ledger-convoy/core';
import { CliError } from '../errors.js';
import type { DeadLetterRow } from './deadLetterRow.js';

/** Longest Service Bus `messageId`: a longer one is refused by the broker. */
const MESSAGE_ID_MAX_LENGTH = 128;

/** Application properties the broker adds when dead-lettering; a resubmission must not carry them back. */
const DEAD_LETTER_PROPERTIES = new Set(['DeadLetterReason', 'DeadLetterErrorDescription']);

/** The parts of a dead letter a resubmission copies. */
export type DeadLetterSource = Pick<
  ServiceBusReceivedMessage,
  'body' | 'messageId' | 'sessionId' | 'correlationId' | 'contentType' | 'subject' | 'applicationProperties'
>;

/**
 * The message that resubmits a dead letter (rule 10), numbered by `next` (see `resubmission`): same body (or the
 * corrected one), `sessionId`, `correlationId`, content type and application properties, with
 * `messageId = next.messageId` and `resubmitCount = n`. A corrected body that is a valid entry also updates the
 * `sequence` and `type` properties.
 * @throws CliError `InvalidOption` when the `messageId` would exceed {@link MESSAGE_ID_MAX_LENGTH} characters — a
 * `ledger` dead letter's id is its `ledgerId`, which may itself be 128 long. Checked before anything is sent.
 */
export function resubmissionMessage(
  dead: DeadLetterSource,
  next: Resubmission,
  correctedBody?: unknown,
): ServiceBusMessage {
  const body = correctedBody === undefined ? dead.body : correctedBody;
  assertMessageIdLength(next.messageId);
  const properties: Record<string, number | boolean | string | Date | null> = {};
  for (const [key, value] of Object.entries(dead.applicationProperties ?? {})) {
    if (!DEAD_LETTER_PROPERTIES.has(key)) properties[key] = value;
  }
  const entry = correctedBody === undefined ? undefined : validateEntry(correctedBody);
  if (entry?.ok) {
    properties.sequence = entry.value.sequence;
    properties.type = entry.value.type;
  }
  properties.resubmitCount = next.resubmitCount;
  return {
    messageId: next.messageId,
    body,
    ...(dead.sessionId !== undefined ? { sessionId: dead.sessionId } : {}),
    ...(dead.correlationId !== undefined ? { correlationId: dead.correlationId } : {}),
    ...(dead.contentType !== undefined ? { contentType: dead.contentType } : {}),
    ...(dead.subject !== undefined ? { subject: dead.subject } : {}),
    applicationProperties: properties,
  };
}

/** What a correction keeps of the entry it corrects (rule 10). */
export interface CorrectedEntryIdentity {
  entryId: string;
  /** The entry's sequence; undefined when it could not be read (then the correction says which it is). */
  sequence: number | undefined;
  /** The session the correction goes to: its body must name this order. */
  sessionId: string;
}

/**
 * The corrected body as a checked entry: valid (else it would only be dead-lettered again, rule 6), with the
 * entry's `entryId` and `sequence` and `orderId = sessionId`. Another `entryId` or sequence is another entry: it
 * would not release the order held at this one, nor number its resubmissions from this one's (rule 10).
 * @throws CliError `InvalidOption` saying what to fix; nothing has been sent for it.
 */
export function checkedCorrection(corrected: unknown, identity: CorrectedEntryIdentity): Entry {
  const checked = validateEntry(corrected);
  if (!checked.ok) {
    const issues = checked.issues.map((i) => `${i.path || '(body)'}: ${i.message}`).join('; ');
    throw new CliError(
      'InvalidOption',
      `The corrected entry ${identity.entryId} is not valid: ${issues}`,
      'Fix it and try again; nothing was sent for it.',
    );
  }
  const entry = checked.value;
  const changed = [
    entry.entryId !== identity.entryId && `entryId ${identity.entryId} (not ${entry.entryId})`,
    identity.sequence !== undefined &&
      entry.sequence !== identity.sequence &&
      `sequence ${identity.sequence} (not ${entry.sequence})`,
    entry.orderId !== identity.sessionId && `orderId ${identity.sessionId}, its session (not ${entry.orderId})`,
  ].filter((part): part is string => typeof part === 'string');
  if (changed.length > 0) {
    throw new CliError(
      'InvalidOption',
      `The corrected entry must keep ${changed.join(', ')}.`,
      'A resubmission corrects this entry only; send a different entry in a new ledger (`convoy send`, POST /api/ledgers). Nothing was sent for it.',
    );
  }
  return entry;
}

/** Identifies an entry among dead letters: its session (order) and `entryId` (unique per order only). */
export function entryKey(sessionId: string, entryId: string): string {
  return `${sessionId}\n${entryId}`;
}

/**
 * The highest `resubmitCount` on the dead letters of each entry ({@link entryKey}), from which its next
 * resubmission is numbered (rule 10): an entry can be dead-lettered, resubmitted and dead-lettered again.
 */
export function highestResubmitCounts(
  rows: Iterable<Pick<DeadLetterRow, 'sessionId' | 'entryId' | 'resubmitCount'>>,
): Map<string, number> {
  const highest = new Map<string, number>();
  for (const row of rows) {
    const key = entryKey(row.sessionId, row.entryId);
    highest.set(key, Math.max(highest.get(key) ?? 0, row.resubmitCount));
  }
  return highest;
}

/** @throws CliError `InvalidOption` naming the limit when a resubmission's `messageId` is too long to send. */
export function assertMessageIdLength(messageId: string): void {
  if (messageId.length <= MESSAGE_ID_MAX_LENGTH) return;
  throw new CliError(
    'InvalidOption',
    `Cannot resubmit ${messageId.slice(0, 40)}…: its messageId would be ${messageId.length} characters, over the Service Bus limit of ${MESSAGE_ID_MAX_LENGTH}.`,
    'Nothing was sent for it. Send its content again under a shorter id instead (a ledger: POST it with a shorter ledgerId; an entry: correct it with --body/--edit to a shorter entryId).',
  );
}
