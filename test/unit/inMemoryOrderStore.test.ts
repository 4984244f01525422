import { describe, expect, it } from 'vitest';
import { inboxRecord } from '../../src/core/documents/inboxRecord.js';
import type { OrderWrite } from '../../src/core/ports/orderStore.js';
import { InMemoryOrderStore, ManualClock } from '../support/fakes/index.js';
import { describeOrderStoreContract, orderDoc } from './contracts/orderStoreContract.js';

describeOrderStoreContract('in memory', () => new InMemoryOrderStore());

describe('InMemoryOrderStore specifics', () => {
  const record = (orderId: string, ttlSeconds = 60) =>
    inboxRecord({
      consumer: 'c',
      orderId,
      entryId: 'e-1',
      requestHash: 'h',
      sequence: 1,
      status: 'applied',
      now: 'now',
      ttlSeconds,
    });
  const write = (orderId: string, inboxOf = orderId): OrderWrite => ({
    inbox: { create: record(inboxOf) },
    order: { doc: orderDoc(orderId), etag: undefined },
  });

  it('stops serving a document once its ttl has passed on the injected clock', async () => {
    // Prepare
    const clock = new ManualClock();
    const store = new InMemoryOrderStore(clock);
    await store.commit('o', write('o'));
    // Act
    clock.advance(59_999);
    const before = await store.readInbox('o', 'inbox:c:e-1');
    clock.advance(1);
    const after = await store.readInbox('o', 'inbox:c:e-1');
    // Assess
    expect(before?.doc.entryId).toBe('e-1');
    expect(after).toBeUndefined();
  });

  it('writes a commit and then answers unknown when told to', async () => {
    // Prepare
    const store = new InMemoryOrderStore();
    store.injectFault({ on: 'commit', kind: 'outcomeUnknown' });
    // Act
    const outcome = await store.commit('o', write('o'));
    // Assess
    expect(outcome.kind).toBe('unknown');
    expect(await store.readInbox('o', 'inbox:c:e-1')).toBeDefined();
  });

  it('fails injected transient calls without side effects, as many times as asked', async () => {
    // Prepare
    const store = new InMemoryOrderStore();
    store.injectFault({ on: 'any', kind: 'transient', times: 2 });
    // Act
    const commit = await store.commit('o', write('o'));
    const read = store.readOrder('o');
    // Assess
    expect(commit.kind).toBe('transient');
    await expect(read).rejects.toMatchObject({ code: 'StoreTransient' });
    expect(await store.readInbox('o', 'inbox:c:e-1')).toBeUndefined();
    expect(store.calls).toEqual({ reads: 2, commits: 1 });
  });

  it('refuses a document of another partition as StoreFailed, as Cosmos DB does', async () => {
    // Prepare
    const store = new InMemoryOrderStore();
    // Act
    const crossPartition = store.commit('o', write('o', 'other'));
    // Assess
    await expect(crossPartition).rejects.toMatchObject({ code: 'StoreFailed', status: 400 });
    expect(store.documents('o').size).toBe(0);
  });
});
