import { describe, expect, it } from 'vitest';
import { OrderCache } from '../../src/core/index.js';
import { entriesFor, makeHarness, uniqueOrderId } from './support/fixtures.js';

// Design, "Throughput: how sessions are handed on": a message that leaves its order deleted ends the sequence, so
// the result tells the host to release the session rather than idle on it.
describe('order processor, end of sequence hands the session on', () => {
  it('marks the message that applies OrderDeleted, and no earlier one', async () => {
    // Prepare
    const h = makeHarness();
    const e = entriesFor(uniqueOrderId());
    // Act
    const created = await h.send(e.created());
    const added = await h.send(e.added(2, 't-1', 5));
    const deleted = await h.send(e.deleted(3));
    // Assess
    expect([created.result.orderDeleted, added.result.orderDeleted]).toEqual([false, false]);
    expect(deleted.result).toMatchObject({ outcome: 'applied', orderDeleted: true });
  });

  it('marks the message whose drain applies a parked OrderDeleted', async () => {
    const h = makeHarness();
    const e = entriesFor(uniqueOrderId());
    await h.send(e.created());
    const parked = await h.send(e.deleted(3));
    const filler = await h.send(e.added(2, 't-1', 5));
    expect(parked.result).toMatchObject({ outcome: 'parked', orderDeleted: false });
    expect(filler.result).toMatchObject({ outcome: 'applied', drained: 1, orderDeleted: true });
  });

  it('marks a duplicate of OrderDeleted, read from the store by a session that had not seen the order', async () => {
    const h = makeHarness();
    const e = entriesFor(uniqueOrderId());
    await h.send(e.created());
    await h.send(e.deleted(2));
    const again = await h.send(e.deleted(2), new OrderCache());
    expect(again.result).toMatchObject({ outcome: 'duplicate', orderDeleted: true });
  });

  it('does not mark a message that cannot be read as an entry', async () => {
    const h = makeHarness();
    const { result } = await h.send({ body: 'not json', messageId: 'm-1', sessionId: 'o-x' });
    expect(result).toMatchObject({ outcome: 'deadLettered', orderDeleted: false });
  });
});
