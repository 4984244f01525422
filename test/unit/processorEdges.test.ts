import { describe, expect, it } from 'vitest';
import { orderView } from '../../src/core/index.js';
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

  it('rejects a parked entry whose entryId already has an outbox record when its turn comes', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.added(2, 't-1', 10));
    h.store.expire(orderId, `inbox:order-processor:${orderId}-e2`);
    await h.send(e.added(4, 't-4', 5, `${orderId}-e2`));
    // Act
    const { result } = await h.send(e.added(3, 't-3', 1));
    // Assess
    expect(result).toMatchObject({ outcome: 'applied', drained: 0, rejected: 1 });
    const stored = await h.store.readOrder(orderId);
    expect(stored && orderView(stored.doc).rejected).toEqual([{ sequence: 4, entryId: `${orderId}-e2`, reason: 'IdempotencyKeyConflict' }]);
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
      level: 'info',
      message: 'entry applied',
      fields: { orderId, entryId: `${orderId}-e1`, sequence: 1, outcome: 'applied', messageId: expect.stringMatching(/:[0-9a-f]{16}$/) },
    });
  });
});
