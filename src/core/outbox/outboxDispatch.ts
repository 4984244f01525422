import type { OutboxRecord } from '../documents/outboxRecord.js';
import type { BusinessState } from '../order/orderView.js';
import type { EntryType } from '../schemas/entry.js';

/** Options of the outbox dispatcher's decisions (from `CoreConfig`). */
export interface OutboxDispatchOptions {
  /** How long a claim holds. @default 60000 */
  leaseMs: number;
  /** Attempts before a record is marked `failed` (and `OutboxFailed` raised). @default 10 */
  maxAttempts: number;
}

/** The `order-events` message of an outbox record, as a plain object for the SDK. */
export interface OrderEventMessage {
  /** The `entryId`: the idempotency key downstream consumers dedupe on. */
  messageId: string;
  /** The `orderId`: `order-events` is session-enabled, so each order's events stay in order. */
  sessionId: string;
  correlationId: string | undefined;
  contentType: 'application/json';
  applicationProperties: { sequence: number; type: EntryType };
  body: { orderId: string; entryId: string; sequence: number; type: EntryType; order: BusinessState };
}

/**
 * Phase one of a dispatch: claims a record that is `pending`, or `in-progress` with a lapsed lease (its dispatcher
 * died mid-send; the send may have happened, which the idempotency key makes harmless). Returns the record to
 * write back under its ETag, or `undefined` if it is not claimable now.
 */
export function claimOutboxRecord(record: OutboxRecord, options: OutboxDispatchOptions & { nowMs: number }): OutboxRecord | undefined {
  const { nowMs } = options;
  const lapsed = record.status === 'in-progress' && (record.leaseUntil === undefined || Date.parse(record.leaseUntil) <= nowMs);
  if (record.status !== 'pending' && !lapsed) return undefined;
  return { ...record, status: 'in-progress', attempts: record.attempts + 1, leaseUntil: new Date(nowMs + options.leaseMs).toISOString() };
}

/** Phase two: the send succeeded. */
export function completeOutboxRecord(record: OutboxRecord, nowMs: number): OutboxRecord {
  const { leaseUntil: _lease, ...rest } = record;
  return { ...rest, status: 'completed', completedAt: new Date(nowMs).toISOString() };
}

/**
 * The send failed: back to `pending` for another attempt, or `failed` once `maxAttempts` are spent (the caller
 * then raises `OutboxFailed`; the record stays for operators).
 */
export function failOutboxRecord(
  record: OutboxRecord,
  failure: { error: string; maxAttempts: number },
): { record: OutboxRecord; exhausted: boolean } {
  const { error, maxAttempts } = failure;
  const { leaseUntil: _lease, ...rest } = record;
  const exhausted = record.attempts >= maxAttempts;
  return { record: { ...rest, status: exhausted ? 'failed' : 'pending', lastError: error }, exhausted };
}

/** The `order-events` message for an outbox record. */
export function orderEventMessage(record: OutboxRecord): OrderEventMessage {
  return {
    messageId: record.entryId,
    sessionId: record.orderId,
    correlationId: record.correlationId,
    contentType: 'application/json',
    applicationProperties: { sequence: record.sequence, type: record.type },
    body: { orderId: record.orderId, entryId: record.entryId, sequence: record.sequence, type: record.type, order: record.order },
  };
}
