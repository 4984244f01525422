import { brokerErrors } from '../errors/brokerError.js';
import type { QueueEntity } from './queueEntity.js';
import type { ParsedMessage } from './wireMessage.js';

/** Longest MessageId and SessionId Service Bus accepts. */
export const MAX_ID_LENGTH = 128;

/**
 * What Service Bus refuses in a sent message before taking any of its batch: ids over 128 characters, and a
 * message without SessionId sent straight to a session-enabled queue (the service's own wording).
 */
export function checkSend(queue: QueueEntity | undefined, p: ParsedMessage): void {
  if (p.messageId.length > MAX_ID_LENGTH) throw brokerErrors.outOfRange(`The MessageId is longer than ${MAX_ID_LENGTH} characters (${p.messageId.length}).`);
  if (p.sessionId !== undefined && p.sessionId.length > MAX_ID_LENGTH) {
    throw brokerErrors.outOfRange(`The SessionId is longer than ${MAX_ID_LENGTH} characters (${p.sessionId.length}).`);
  }
  if (queue?.sessions && p.sessionId === undefined) {
    throw brokerErrors.invalid(
      'The SessionId was not set on a message, and it cannot be sent to the entity. Entities that have session support enabled can only receive messages that have the SessionId set to a valid value.',
    );
  }
}
