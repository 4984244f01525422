import { describe, expect, it } from 'vitest';
import {
  claimOutboxRecord,
  completeOutboxRecord,
  failOutboxRecord,
  orderEventMessage,
  type OutboxRecord,
} from '../../src/core/index.js';
import { entriesFor, makeHarness, uniqueOrderId } from './support/fixtures.js';

const options = { leaseMs: 60_000, maxAttempts: 2 };
const t0 = Date.parse('2025-01-01T00:00:00.000Z');

async function writtenOutbox(): Promise<OutboxRecord> {
  const h = makeHarness();
  const orderId = uniqueOrderId();
  await h.send(entriesFor(orderId).created());
  return h.store.documents(orderId).get(`outbox:${orderId}-e1`) as OutboxRecord;
}

describe('outbox dispatch decisions', () => {
  it('claims a pending record with a lease, and not again while the lease holds', async () => {
    // Prepare
    const record = await writtenOutbox();
    // Act
    const claimed = claimOutboxRecord(record, { ...options, nowMs: t0 });
    const again = claimed && claimOutboxRecord(claimed, { ...options, nowMs: t0 + 59_999 });
    const afterLapse = claimed && claimOutboxRecord(claimed, { ...options, nowMs: t0 + 60_000 });
    // Assess
    expect(claimed).toMatchObject({ status: 'in-progress', attempts: 1, leaseUntil: '2025-01-01T00:01:00.000Z' });
    expect(again).toBeUndefined();
    expect(afterLapse).toMatchObject({ status: 'in-progress', attempts: 2 });
  });

  it('completes a record, and never claims a completed one', async () => {
    // Prepare
    const claimed = claimOutboxRecord(await writtenOutbox(), { ...options, nowMs: t0 })!;
    // Act
    const completed = completeOutboxRecord(claimed, t0 + 5);
    // Assess
    expect(completed).toMatchObject({ status: 'completed', completedAt: '2025-01-01T00:00:00.005Z' });
    expect(completed.leaseUntil).toBeUndefined();
    expect(claimOutboxRecord(completed, { ...options, nowMs: t0 + 10 ** 9 })).toBeUndefined();
  });

  it('returns a failed send to pending until the attempts are spent, then marks it failed', async () => {
    // Prepare
    const first = claimOutboxRecord(await writtenOutbox(), { ...options, nowMs: t0 })!;
    // Act
    const retry = failOutboxRecord(first, { error: 'timeout', maxAttempts: options.maxAttempts });
    const second = claimOutboxRecord(retry.record, { ...options, nowMs: t0 + 1 })!;
    const last = failOutboxRecord(second, { error: 'timeout', maxAttempts: options.maxAttempts });
    // Assess
    expect(retry).toMatchObject({ exhausted: false, record: { status: 'pending', lastError: 'timeout', attempts: 1 } });
    expect(last).toMatchObject({ exhausted: true, record: { status: 'failed', attempts: 2 } });
  });

  it('builds the order-events message keyed by the entryId, carrying the state after the entry', async () => {
    // Prepare
    const record = await writtenOutbox();
    // Act
    const message = orderEventMessage(record);
    // Assess
    expect(message).toEqual({
      messageId: record.entryId,
      sessionId: record.orderId,
      correlationId: 'L-0001',
      contentType: 'application/json',
      applicationProperties: { sequence: 1, type: 'OrderCreated' },
      body: { orderId: record.orderId, entryId: record.entryId, sequence: 1, type: 'OrderCreated', order: expect.objectContaining({ status: 'open', lastSequence: 1 }) },
    });
  });
});
