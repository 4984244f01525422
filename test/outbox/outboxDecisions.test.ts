import { describe, expect, it } from 'vitest';
import {
  claimOutboxRecord,
  completeOutboxRecord,
  failOutboxRecord,
  isClaimable,
  orderEventMessage,
  outboxBackoffMs,
  retryOutboxRecord,
} from '../../src/core/outbox/outboxDispatch.js';
import { pendingRecord } from './support/records.js';

const t0 = Date.parse('2025-01-01T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const backoff = { maxAttempts: 3, backoffBaseMs: 1_000, backoffMaxMs: 5_000 };

describe('outbox record phases', () => {
  it('claims a pending record with a lease and counts the attempt, and not again while the lease holds', () => {
    // Prepare
    const record = pendingRecord('o-1', 1);
    // Act
    const claimed = claimOutboxRecord(record, { leaseMs: 60_000, nowMs: t0 });
    const again = claimOutboxRecord(claimed!, { leaseMs: 60_000, nowMs: t0 + 59_999 });
    const reclaimed = claimOutboxRecord(claimed!, { leaseMs: 60_000, nowMs: t0 + 60_000 });
    // Assess
    expect(claimed).toMatchObject({ status: 'in-progress', attempts: 1, leaseUntil: iso(t0 + 60_000) });
    expect(again).toBeUndefined();
    expect(reclaimed).toMatchObject({ id: record.id, status: 'in-progress', attempts: 2, leaseUntil: iso(t0 + 120_000) });
  });

  it('reclaims an in-progress record that has no lease at all', () => {
    expect(isClaimable({ status: 'in-progress', leaseUntil: undefined, nextAttemptAt: undefined }, t0)).toBe(true);
  });

  it('completes a claimed record with the receipts and a TTL, and never claims it again', () => {
    // Prepare
    const claimed = claimOutboxRecord(pendingRecord('o-1', 1, { delivered: ['order-events'] }), { leaseMs: 1_000, nowMs: t0 })!;
    // Act
    const completed = completeOutboxRecord(claimed, { nowMs: t0 + 5, ttlSeconds: 604_800, result: [{ target: 'order-events', detail: 'sent' }] });
    // Assess
    expect(completed).toMatchObject({ status: 'completed', completedAt: iso(t0 + 5), ttl: 604_800, result: [{ target: 'order-events', detail: 'sent' }] });
    expect(completed).not.toHaveProperty('leaseUntil');
    expect(completed).not.toHaveProperty('delivered');
    expect(claimOutboxRecord(completed, { leaseMs: 1_000, nowMs: t0 + 10 ** 10 })).toBeUndefined();
  });

  it('backs off exponentially after failed attempts, up to the maximum', () => {
    expect([1, 2, 3, 4, 5].map((n) => outboxBackoffMs(n, backoff))).toEqual([1_000, 2_000, 4_000, 5_000, 5_000]);
    expect(outboxBackoffMs(10_000, backoff)).toBe(5_000);
  });

  it('returns a failed attempt to pending with nextAttemptAt, not claimable before it', () => {
    // Prepare
    const claimed = claimOutboxRecord(pendingRecord('o-1', 1), { leaseMs: 60_000, nowMs: t0 })!;
    // Act
    const { record, exhausted } = failOutboxRecord(claimed, { error: 'HTTP 500', nowMs: t0 + 10, delivered: ['order-events'] }, backoff);
    // Assess
    expect(exhausted).toBe(false);
    expect(record).toMatchObject({ status: 'pending', attempts: 1, lastError: 'HTTP 500', nextAttemptAt: iso(t0 + 1_010), delivered: ['order-events'] });
    expect(record).not.toHaveProperty('leaseUntil');
    expect(claimOutboxRecord(record, { leaseMs: 60_000, nowMs: t0 + 1_009 })).toBeUndefined();
    expect(claimOutboxRecord(record, { leaseMs: 60_000, nowMs: t0 + 1_010 })).toMatchObject({ attempts: 2 });
    expect(claimOutboxRecord(record, { leaseMs: 60_000, nowMs: t0 + 1_010 })).not.toHaveProperty('nextAttemptAt');
  });

  it('marks the record failed once the attempts are spent, keeping what was delivered', () => {
    // Prepare
    let record = pendingRecord('o-1', 1);
    let now = t0;
    let last: ReturnType<typeof failOutboxRecord> | undefined;
    // Act
    for (let i = 0; i < backoff.maxAttempts; i++) {
      const claimed = claimOutboxRecord(record, { leaseMs: 60_000, nowMs: now })!;
      last = failOutboxRecord(claimed, { error: `try ${i + 1}`, nowMs: now, delivered: i === 0 ? ['order-events'] : [] }, backoff);
      record = last.record;
      now += 10_000;
    }
    // Assess
    expect(last!.exhausted).toBe(true);
    expect(record).toMatchObject({ status: 'failed', attempts: 3, lastError: 'try 3', delivered: ['order-events'], failedAt: iso(t0 + 20_000) });
    expect(record).not.toHaveProperty('nextAttemptAt');
    expect(claimOutboxRecord(record, { leaseMs: 60_000, nowMs: now + 10 ** 9 })).toBeUndefined();
  });

  it("resets an operator's retry to pending with no attempts, and refuses records that are not failed", () => {
    // Prepare
    const failed = pendingRecord('o-1', 1, { status: 'failed', attempts: 10, failedAt: iso(t0), lastError: 'boom', nextAttemptAt: iso(t0) });
    // Act
    const retried = retryOutboxRecord(failed);
    // Assess
    expect(retried).toMatchObject({ status: 'pending', attempts: 0, lastError: 'boom' });
    expect(retried).not.toHaveProperty('failedAt');
    expect(retried).not.toHaveProperty('nextAttemptAt');
    expect(isClaimable(retried!, t0)).toBe(true);
    expect(retryOutboxRecord(pendingRecord('o-1', 1))).toBeUndefined();
    expect(retryOutboxRecord(pendingRecord('o-1', 1, { status: 'completed' }))).toBeUndefined();
  });
});

describe('order-events message', () => {
  it('is keyed by the record id, in the order session, carrying the state after the entry', () => {
    // Prepare
    const record = pendingRecord('o-7', 2);
    // Act
    const message = orderEventMessage(record);
    // Assess
    expect(message).toEqual({
      messageId: 'outbox:o-7-2',
      sessionId: 'o-7',
      correlationId: 'L-1',
      contentType: 'application/json',
      applicationProperties: { sequence: 2, type: 'TransactionAdded' },
      body: { orderId: 'o-7', sequence: 2, entryId: 'o-7-2', order: record.order },
    });
  });
});
