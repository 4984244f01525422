import { describe, expect, it } from 'vitest';
import { inboxRecord } from '../../src/core/documents/inboxRecord.js';
import { readOrderView } from '../../src/core/order/readOrderView.js';
import { entriesFor, makeHarness, uniqueOrderId } from './support/fixtures.js';

describe('order processor, stored-state edge cases', () => {
  it('dead-letters an entryId reused at the next sequence once its inbox expired but its outbox record remains', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.added(2, 't-1', 10));
    h.store.expire(orderId, `inbox:order-processor:${orderId}-e2`);
    // Act
    const { result } = await h.send(e.added(3, 't-2', 5, `${orderId}-e2`));
    // Assess
    expect(result).toMatchObject({ outcome: 'deadLettered', reason: 'IdempotencyKeyConflict' });
    expect(h.telemetry.alerts.map((a) => a.name)).toEqual(['IdempotencyKeyConflict']);
    expect(h.store.documents(orderId).has(`inbox:order-processor:${orderId}-e2`)).toBe(false);
  });

  it('dead-letters at the door an entryId applied at another sequence once its inbox expired, recording nothing (rule 3)', async () => {
    // Prepare: X applied at 2, its inbox record expired, then X arrives at 4 (a gap) with other content
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.added(2, 't-1', 10, 'X'));
    h.store.expire(orderId, 'inbox:order-processor:X');
    // Act
    const { result } = await h.send(e.added(4, 't-4', 5, 'X'));
    const fill = await h.send(e.added(3, 't-3', 1));
    // Assess
    expect(result).toMatchObject({ outcome: 'deadLettered', reason: 'IdempotencyKeyConflict' });
    expect(h.telemetry.alerts.map((a) => a.name)).toEqual(['IdempotencyKeyConflict']);
    const docs = h.store.documents(orderId);
    expect(docs.has('inbox:order-processor:X')).toBe(false);
    expect(docs.has('parked:4')).toBe(false);
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
    h.store.expire(orderId, 'inbox:order-processor:X');
    await h.send(e.added(3, 't-3', 5, 'X'));
    // Act
    const { result } = await h.send(e.added(3, 't-3', 5, 'Y'));
    // Assess
    expect(result.outcome).toBe('applied');
    expect((await h.store.readOrder(orderId))?.doc.lastSequence).toBe(3);
  });

  it('dead-letters an entryId parked or rejected at another sequence instead of parking it twice (rule 3)', async () => {
    // Prepare: X parked at 4, its inbox record expired; then X at 3 and X at 6
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.amended(4, 't-unknown', 5, 'X'));
    h.store.expire(orderId, 'inbox:order-processor:X');
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

  it('rejects a parked entry whose entryId turns out applied elsewhere when its turn comes', async () => {
    // Prepare: the door cannot see this (the applied record appears only after the park), so the drain must
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.added(3, 't-3', 5, 'X'));
    const trace = {
      id: 'applied:X',
      docType: 'applied' as const,
      orderId,
      entryId: 'X',
      sequence: 9,
      requestHash: 'f'.repeat(64),
      appliedAt: 'then',
    };
    h.store.put(trace);
    // Act
    const { result } = await h.send(e.added(2, 't-2', 1));
    // Assess
    expect(result).toMatchObject({ outcome: 'applied', drained: 0, rejected: 1 });
    const stored = await readOrderView(h.store, orderId);
    expect(stored?.rejected).toEqual([{ sequence: 3, entryId: 'X', reason: 'IdempotencyKeyConflict' }]);
  });

  it("leaves alone an inbox record of the same entryId that is not the rejected entry's own", async () => {
    // Prepare: the parked entry's inbox record expired and a record of the same entryId now says something else
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.amended(3, 't-unknown', 5, 'X'));
    h.store.expire(orderId, 'inbox:order-processor:X');
    const foreign = inboxRecord({
      consumer: 'order-processor',
      orderId,
      entryId: 'X',
      requestHash: 'f'.repeat(64),
      sequence: 8,
      status: 'parked',
      now: 'now',
      ttlSeconds: 3600,
    });
    h.store.put(foreign);
    // Act
    const { result } = await h.send(e.added(2, 't-2', 1));
    // Assess
    expect(result).toMatchObject({ outcome: 'applied', rejected: 1 });
    expect(h.store.documents(orderId).get('inbox:order-processor:X')).toMatchObject({
      sequence: 8,
      requestHash: 'f'.repeat(64),
    });
  });

  it('abandons with StoreInconsistent when a listed parked entry has no document', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.added(3, 't-3', 1));
    h.store.expire(orderId, 'parked:3');
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
