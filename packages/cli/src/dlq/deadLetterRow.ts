import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { normaliseBody, readResubmitCount } from 'ledger-convoy/core';
import { messageEntryId, messageIdText, messageSequence } from '../ids.js';

/** One dead letter as `dlq list` shows it. */
export interface DeadLetterRow {
  /** Broker sequence number (decimal text): the id `show` and `resubmit` accept besides message and entry ids. */
  sequenceNumber: string;
  messageId: string;
  reason: string;
  description: string;
  sessionId: string;
  /** The body's `entryId`, else the message id without its suffixes. */
  entryId: string;
  /** The body's `sequence` when readable. */
  sequence: number | undefined;
  enqueuedAt: string;
  resubmitCount: number;
}

/** The row of a dead letter. */
export function deadLetterRow(message: ServiceBusReceivedMessage): DeadLetterRow {
  return {
    sequenceNumber: message.sequenceNumber?.toString() ?? '',
    messageId: messageIdText(message.messageId),
    reason: message.deadLetterReason ?? '',
    description: message.deadLetterErrorDescription ?? '',
    sessionId: message.sessionId ?? '',
    entryId: messageEntryId(message.body, message.messageId),
    sequence: messageSequence(message.body),
    enqueuedAt: message.enqueuedTimeUtc?.toISOString() ?? '',
    resubmitCount: readResubmitCount(message.applicationProperties),
  };
}

/** Whether `id` names this dead letter: its sequence number, message id or entry id. */
export function matchesId(row: DeadLetterRow, id: string): boolean {
  return row.sequenceNumber === id || row.messageId === id || row.entryId === id;
}

/** Everything about one dead letter, for `dlq show`. */
export function deadLetterDetail(message: ServiceBusReceivedMessage): Record<string, unknown> {
  const parsed = normaliseBody(message.body);
  return {
    ...deadLetterRow(message),
    correlationId: message.correlationId === undefined ? undefined : messageIdText(message.correlationId),
    contentType: message.contentType,
    subject: message.subject,
    deliveryCount: message.deliveryCount,
    deadLetterSource: message.deadLetterSource,
    applicationProperties: message.applicationProperties ?? {},
    body: parsed.ok ? parsed.value : bodyText(message.body),
  };
}

/** A body that is not JSON, as text (bytes decoded leniently, for reading). */
export function bodyText(body: unknown): string {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body).toString('utf8');
  return JSON.stringify(body) ?? '';
}
