import { describe, expect, it } from 'vitest';
import { entriesFor, makeHarness, uniqueOrderId } from './support/fixtures.js';

describe('order processor, stored-state edge cases', () => {
  it('dead-letters an entryId reused at the next sequence: its record is the arbiter, and stays as it was', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.added(2, 't-1', 10));
    // Act
    const { result } = await h.send(e.added(3, 't-2', 5, `${orderId}-e2`));
    // Assess
    expect(result).toMatchObject({ outcome: 'deadLettered', reason: 'IdempotencyKeyConflict' });
    expect(h.telemetry.alerts.map((a) => a.name)).toEqual(['IdempotencyKeyConflict']);
    expect(h.store.documents(orderId).get(`entry:order-processor:${orderId}-e2`)).toMatchObject({
      status: 'applied',
      sequence: 2,
    });
  });

  it('dead-letters at the door an entryId applied at another sequence, recording nothing (rule 3)', async () => {
    // Prepare: X applied at 2, then X arrives at 4 (a gap) with other content
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.added(2, 't-1', 10, 'X'));
    // Act
    const { result } = await h.send(e.added(4, 't-4', 5, 'X'));
    const fill = await h.send(e.added(3, 't-3', 1));
    // Assess
    expect(result).toMatchObject({ outcome: 'deadLettered', reason: 'IdempotencyKeyConflict' });
    expect(h.telemetry.alerts.map((a) => a.name)).toEqual(['IdempotencyKeyConflict']);
    const docs = h.store.documents(orderId);
    expect(docs.get('entry:order-processor:X')).toMatchObject({ status: 'applied', sequence: 2 });
    expect(fill.result).toMatchObject({ outcome: 'applied', drained: 0, rejected: 0 });
    expect((await h.store.readOrder(orderId))?.doc).toMatchObject({ lastSequence: 3, parked: [], rejected: [] });
  });

  it('lets a corrected entry with a fresh entryId fill the sequence an entryId reuse was refused at', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.added(2, 't-1', 10, 'X'));
    await h.send(e.added(3, 't-3', 5, 'X'));
    // Act
    const { result } = await h.send(e.added(3, 't-3', 5, 'Y'));
    // Assess
    expect(result.outcome).toBe('applied');
    expect((await h.store.readOrder(orderId))?.doc.lastSequence).toBe(3);
  });

  it('dead-letters an entryId parked or rejected at another sequence instead of parking it twice (rule 3)', async () => {
    // Prepare: X parked at 4; then X at 2 and X at 6, and X at 7 once 4 was rejected
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.amended(4, 't-unknown', 5, 'X'));
    // Act
    const atNext = await h.send(e.added(2, 't-2', 5, 'X'));
    const atGap = await h.send(e.added(6, 't-6', 5, 'X'));
    await h.send(e.added(2, 't-2', 1));
    await h.send(e.added(3, 't-3', 1)); // 4 is due and now impossible: rejected (rule 11)
    const afterRejection = await h.send(e.added(7, 't-7', 5, 'X'));
    // Assess
    expect(atNext.result).toMatchObject({ outcome: 'deadLettered', reason: 'IdempotencyKeyConflict' });
    expect(atNext.result.description).toContain('parked at sequence 4');
    expect(atGap.result).toMatchObject({ outcome: 'deadLettered', reason: 'IdempotencyKeyConflict' });
    expect(afterRejection.result).toMatchObject({ outcome: 'deadLettered', reason: 'IdempotencyKeyConflict' });
    expect(afterRejection.result.description).toContain('rejected at sequence 4');
    expect((await h.store.readOrder(orderId))?.doc).toMatchObject({
      lastSequence: 3,
      parked: [],
      rejected: [{ sequence: 4, entryId: 'X' }],
    });
  });

  it('abandons with StoreInconsistent when a listed parked entry has no record', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.added(3, 't-3', 1));
    h.store.expire(orderId, `entry:order-processor:${orderId}-e3`);
    // Act
    const { result, settlement } = await h.send(e.added(2, 't-2', 1));
    // Assess
    expect(result).toMatchObject({ outcome: 'abandoned', errorCode: 'StoreInconsistent' });
    expect(settlement.calls).toEqual([{ action: 'abandon' }]);
    expect(h.telemetry.logs.some((l) => l.level === 'error' && l.fields.code === 'StoreInconsistent')).toBe(true);
  });

  it('logs every processed message with its keys and outcome', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    // Act
    await h.send(entriesFor(orderId).created());
    // Assess
    expect(h.telemetry.logs.at(-1)).toMatchObject({
      level: 'debug',
      message: 'entry applied',
      fields: {
        orderId,
        entryId: `${orderId}-e1`,
        sequence: 1,
        outcome: 'applied',
        messageId: expect.stringMatching(/:[0-9a-f]{16}$/),
      },
    });
  });
});
