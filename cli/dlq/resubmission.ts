import type { ServiceBusMessage, ServiceBusReceivedMessage } from '@azure/service-bus';
import { resubmission, validateEntry } from '../../src/core/index.js';
import { CliError } from '../errors.js';
import { messageEntryId } from '../ids.js';

/** Longest Service Bus `messageId`: a longer one is refused by the broker. */
export const MESSAGE_ID_MAX_LENGTH = 128;

/** Application properties the broker adds when dead-lettering; a resubmission must not carry them back. */
const DEAD_LETTER_PROPERTIES = new Set(['DeadLetterReason', 'DeadLetterErrorDescription']);

/** The parts of a dead letter a resubmission copies. */
export type DeadLetterSource = Pick<
  ServiceBusReceivedMessage,
  'body' | 'messageId' | 'sessionId' | 'correlationId' | 'contentType' | 'subject' | 'applicationProperties'
>;

/**
 * The message that resubmits a dead letter (rule 10): same body (or the corrected one), `sessionId`,
 * `correlationId`, content type and application properties, with `messageId = <entryId>.r<n>` and
 * `resubmitCount = n`, n = 1 + the dead letter's `resubmitCount`. A corrected body that is a valid entry also
 * updates the `sequence` and `type` properties.
 * @throws CliError `InvalidOption` when `<id>.r<n>` would exceed {@link MESSAGE_ID_MAX_LENGTH} characters — a
 * `ledger` dead letter's id is its `ledgerId`, which may itself be 128 long. Checked before anything is sent.
 */
export function resubmissionMessage(dead: DeadLetterSource, correctedBody?: unknown): ServiceBusMessage {
  const body = correctedBody === undefined ? dead.body : correctedBody;
  const entryId = messageEntryId(body, dead.messageId);
  const next = resubmission(entryId, dead.applicationProperties);
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

/** @throws CliError `InvalidOption` naming the limit when a resubmission's `messageId` is too long to send. */
export function assertMessageIdLength(messageId: string): void {
  if (messageId.length <= MESSAGE_ID_MAX_LENGTH) return;
  throw new CliError(
    'InvalidOption',
    `Cannot resubmit ${messageId.slice(0, 40)}…: its messageId would be ${messageId.length} characters, over the Service Bus limit of ${MESSAGE_ID_MAX_LENGTH}.`,
    'Nothing was sent for it. Send its content again under a shorter id instead (a ledger: POST it with a shorter ledgerId; an entry: correct it with --body/--edit to a shorter entryId).',
  );
}
