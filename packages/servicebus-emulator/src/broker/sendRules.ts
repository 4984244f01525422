import type { EntitySettings } from '../config.js';
import { brokerErrors } from '../errors/brokerError.js';
import type { ParsedMessage } from './wireMessage.js';

/** Longest MessageId, SessionId and PartitionKey Service Bus accepts. */
const MAX_ID_LENGTH = 128;

/** The entity a send goes to, as the rules see it. */
export interface SendTargetRules {
  readonly name: string;
  readonly settings: EntitySettings;
  /** A queue that requires sessions (a topic routes session-less messages on; see the broker). */
  readonly requiresSessionOnSend: boolean;
}

/** Whether the entity accepts sends in its status (`SendDisabled` and `Disabled` do not). */
function checkSendable(target: SendTargetRules): void {
  if (target.settings.status === 'Disabled' || target.settings.status === 'SendDisabled')
    throw brokerErrors.entityDisabled(target.name, 'send');
}

/**
 * What Service Bus refuses in a send before taking any message of it: ids over 128 characters, a message without
 * SessionId sent straight to a session-enabled queue (the service's own wording), and on a partitioned entity a
 * PartitionKey that differs from the SessionId, or a batch spread over more than one partition key.
 */
export function checkSend(target: SendTargetRules, batch: readonly ParsedMessage[]): void {
  checkSendable(target);
  let batchKey: string | undefined;
  for (const p of batch) {
    for (const [field, value] of [
      ['MessageId', p.messageId],
      ['SessionId', p.sessionId],
      ['PartitionKey', p.partitionKey],
    ] as const) {
      if (value !== undefined && value.length > MAX_ID_LENGTH)
        throw brokerErrors.outOfRange(`The ${field} is longer than ${MAX_ID_LENGTH} characters (${value.length}).`);
    }
    if (target.requiresSessionOnSend && p.sessionId === undefined) {
      throw brokerErrors.invalid(
        'The SessionId was not set on a message, and it cannot be sent to the entity. Entities that have session support enabled can only receive messages that have the SessionId set to a valid value.',
      );
    }
    if (!target.settings.enablePartitioning) continue;
    // An empty SessionId ("", a session like any other) does not take part in partitioning.
    if (p.sessionId && p.partitionKey !== undefined && p.sessionId !== p.partitionKey) {
      throw brokerErrors.invalid(
        `The PartitionKey '${p.partitionKey}' of a message sent to the partitioned entity '${target.name}' differs from its SessionId '${p.sessionId}'; when both are set they must be equal.`,
      );
    }
    const key = p.sessionId || p.partitionKey;
    if (key === undefined) continue;
    if (batchKey !== undefined && key !== batchKey) {
      throw brokerErrors.invalid(
        `A batch sent to the partitioned entity '${target.name}' holds messages of more than one partition key ('${batchKey}', '${key}'); all messages of a batch must share one.`,
      );
    }
    batchKey = key;
  }
}
