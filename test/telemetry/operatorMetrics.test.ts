import { metrics } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGapMonitor } from '../../src/core/index.js';
import { joinedHold } from '../../src/core/outbox/holdMarker.js';
import { outboxGauges } from '../../src/functions/outboxGauges.js';
import { drainSession, startStack, type Stack } from '../integration/support/stack.js';
import { orderEntries, uid, type TestEntry } from '../integration/support/ledgers.js';
import { relayWholeFeed } from '../outbox/support/relayFeed.js';
import { inMemoryMetrics, valueOf } from './support.js';

let stack: Stack;
const otel = inMemoryMetrics();

beforeAll(async () => {
  metrics.setGlobalMeterProvider(otel.provider);
  stack = await startStack();
});

afterAll(async () => {
  await stack?.close();
  metrics.disable();
  await otel.provider.shutdown();
});

async function sendEntries(entries: { entry: TestEntry; messageId: string }[]): Promise<void> {
  const sender = stack.bus.createSender('orders');
  for (const { entry, messageId } of entries) {
    await sender.sendMessages({
      messageId,
      sessionId: entry.orderId,
      correlationId: 'L-metrics',
      contentType: 'application/json',
      body: entry,
    });
  }
  await sender.close();
}

describe('operator metrics through an in-memory OpenTelemetry reader', () => {
  it('counts applied, duplicate, conflicting, dead-lettered and parked entries, durations, outbox and gap figures', async () => {
    // Prepare: order a applies 1-2, then a duplicate of 2 and a conflicting copy of 2; order b parks 3 behind a gap.
    const a = uid('o');
    const b = uid('o');
    const [a1, a2] = orderEntries(a, [100]);
    const conflicting: TestEntry = { ...a2!, data: { transactionId: 't-1', amount: 999 } };
    const [b1, , b3] = orderEntries(b, [1, 2]);
    await sendEntries([
      { entry: a1!, messageId: 'm-a1' },
      { entry: a2!, messageId: 'm-a2' },
      { entry: a2!, messageId: 'm-a2-again' },
      { entry: conflicting, messageId: 'm-a2-conflict' },
      { entry: b1!, messageId: 'm-b1' },
      { entry: b3!, messageId: 'm-b3' },
    ]);
    const c = uid('o');
    await stack.container.items.create(
      joinedHold(
        c,
        undefined,
        { owed: { 'order-events': 0 }, through: 1, error: 'HTTP 503' },
        { nowMs: Date.now(), nextAttemptMs: Date.now() + 60_000 },
      ),
    );
    const app = stack.app.context();
    // Act
    await drainSession(stack, a);
    await drainSession(stack, b);
    // What the outbox relay's trigger does, page by page of the change feed; then the gauges' timer.
    const relayed = await relayWholeFeed(stack.container, app.outbox.relay);
    const gauges = await outboxGauges(app);
    // The gap monitor runs "20 minutes after" b's entry was parked, counted from the stored parkedAt: counted from now,
    // the time the drains took would add to the age.
    const { resource: orderB } = await stack.container.item('order', b).read<{ parked: { parkedAt: string }[] }>();
    const later = Math.min(...(orderB?.parked ?? []).map((p) => Date.parse(p.parkedAt))) + 20 * 60_000;
    const gaps = await runGapMonitor({
      store: app.store,
      telemetry: app.telemetry,
      gapAlertAgeMs: app.config.gapAlertAgeMs,
      gapAlertRepeatMs: app.config.gapAlertRepeatMs,
      consumerName: app.config.consumerName,
      metrics: app.metrics,
      clock: { now: () => later },
    });
    const points = await otel.collect();
    // Assess
    expect(relayed.delivered).toBe(3);
    expect(gauges).toMatchObject({ holds: 1, lagSeconds: 0 });
    expect(valueOf(points, 'convoy.entries.applied')).toBe(3);
    expect(valueOf(points, 'convoy.entries.duplicate')).toBe(1);
    expect(valueOf(points, 'convoy.entries.conflicts', { reason: 'IdempotencyKeyConflict' })).toBe(1);
    expect(valueOf(points, 'convoy.entries.dead_lettered', { reason: 'IdempotencyKeyConflict' })).toBe(1);
    expect(valueOf(points, 'IdempotencyKeyConflict')).toBe(1);
    expect(valueOf(points, 'convoy.entries.parked')).toBe(1);
    expect(valueOf(points, 'convoy.entries.processing_duration')).toBe(6);
    expect(valueOf(points, 'convoy.entries.processing_duration', { outcome: 'applied' })).toBe(3);
    expect(valueOf(points, 'convoy.outbox.delivered')).toBe(3);
    expect(valueOf(points, 'convoy.outbox.holds')).toBe(1);
    expect(valueOf(points, 'convoy.outbox.lag_seconds')).toBe(0);
    expect(valueOf(points, 'convoy.parked.entries')).toBe(1);
    expect(valueOf(points, 'convoy.gap.oldest_age')).toBeGreaterThanOrEqual(20 * 60);
    expect(valueOf(points, 'convoy.gap.oldest_age')).toBeLessThan(21 * 60);
    expect(valueOf(points, 'GapTooOld')).toBe(1);
    expect(gaps.stale).toEqual([
      expect.objectContaining({ orderId: b, waitingFor: 2, sequence: 3, entryId: b3!.entryId, parked: 1 }),
    ]);
  });
});
