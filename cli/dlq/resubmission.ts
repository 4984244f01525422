import type { ServiceBusMessage, ServiceBusReceivedMessage } from '@azure/service-bus';
import { resubmission, validateEntry } from '../../src/core/index.js';
import { messageEntryId } from '../ids.js';

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
 */
export function resubmissionMessage(dead: DeadLetterSource, correctedBody?: unknown): ServiceBusMessage {
  const body = correctedBody === undefined ? dead.body : correctedBody;
  const entryId = messageEntryId(body, dead.messageId);
  const next = resubmission(entryId, dead.applicationProperties);
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
