import { describe, expect, it } from 'vitest';
import { type Entry } from '../../src/core/index.js';
import { OrderCache } from '../../src/core/processor/orderCache.js';
import { entriesFor, makeHarness, messageFor, uniqueOrderId } from './support/fixtures.js';

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
    expect([created.result.releaseSession, added.result.releaseSession]).toEqual([undefined, undefined]);
    expect(deleted.result).toMatchObject({ outcome: 'applied', releaseSession: 'orderDeleted' });
  });

  it('marks the message whose drain applies a parked OrderDeleted', async () => {
    const h = makeHarness();
    const e = entriesFor(uniqueOrderId());
    await h.send(e.created());
    const parked = await h.send(e.deleted(3));
    const filler = await h.send(e.added(2, 't-1', 5));
    expect(parked.result).toMatchObject({ outcome: 'parked' });
    expect(parked.result.releaseSession).toBeUndefined();
    expect(filler.result).toMatchObject({ outcome: 'applied', drained: 1, releaseSession: 'orderDeleted' });
  });

  it('marks a duplicate of OrderDeleted, read from the store by a session that had not seen the order', async () => {
    const h = makeHarness();
    const e = entriesFor(uniqueOrderId());
    await h.send(e.created());
    await h.send(e.deleted(2));
    const again = await h.send(e.deleted(2), new OrderCache());
    expect(again.result).toMatchObject({ outcome: 'duplicate', releaseSession: 'orderDeleted' });
  });

  it('does not mark a message that cannot be read as an entry', async () => {
    const h = makeHarness();
    const { result } = await h.send({ body: 'not json', messageId: 'm-1', sessionId: 'o-x' });
    expect(result).toMatchObject({ outcome: 'deadLettered' });
    expect(result.releaseSession).toBeUndefined();
  });

  it("hands the session on after an entry carrying the splitter's handOff marker, whatever its outcome", async () => {
    const h = makeHarness();
    const e = entriesFor(uniqueOrderId());
    const marked = (entry: Entry) =>
      messageFor(entry, { applicationProperties: { sequence: entry.sequence, type: entry.type, handOff: true } });
    const applied = await h.send(marked(e.created()));
    const parked = await h.send(marked(e.added(3, 't-3', 1)));
    const conflict = await h.send(marked({ ...e.created(), data: { customerId: 'c-2', currency: 'USD' } } as Entry));
    expect(applied.result).toMatchObject({ outcome: 'applied', releaseSession: 'handOff' });
    expect(parked.result).toMatchObject({ outcome: 'parked', releaseSession: 'handOff' });
    expect(conflict.result).toMatchObject({ outcome: 'deadLettered', releaseSession: 'handOff' });
  });

  it('stays on the session after an abandoned message, marker or not: its redelivery comes first', async () => {
    const h = makeHarness({ transientRetryBudgetMs: 0 });
    const e = entriesFor(uniqueOrderId());
    h.store.injectFault({ on: 'commit', kind: 'failed' });
    const entry = e.created();
    const { result } = await h.send(
      messageFor(entry, { applicationProperties: { sequence: 1, type: entry.type, handOff: true } }),
    );
    expect(result.outcome).toBe('abandoned');
    expect(result.releaseSession).toBeUndefined();
  });

  it('ignores a marker that is not the boolean true', async () => {
    const h = makeHarness();
    const entry = entriesFor(uniqueOrderId()).created();
    const { result } = await h.send(
      messageFor(entry, { applicationProperties: { sequence: 1, type: entry.type, handOff: 'yes' } }),
    );
    expect(result).toMatchObject({ outcome: 'applied' });
    expect(result.releaseSession).toBeUndefined();
  });
});
