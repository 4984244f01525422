import { describe, expect, it } from 'vitest';
import { inboxRecord, type StoreOperation } from '../../src/core/index.js';
import { InMemoryOrderStore, ManualClock } from '../../src/core/testing/index.js';
import { describeOrderStoreContract } from './contracts/orderStoreContract.js';

describeOrderStoreContract('in memory', () => new InMemoryOrderStore());

describe('InMemoryOrderStore specifics', () => {
  const record = (orderId: string, ttlSeconds = 60) =>
    inboxRecord({ consumer: 'c', orderId, entryId: 'e-1', requestHash: 'h', sequence: 1, status: 'applied', now: 'now', ttlSeconds });

  it('stops serving a document once its ttl has passed on the injected clock', async () => {
    // Prepare
    const clock = new ManualClock();
    const store = new InMemoryOrderStore(clock);
    await store.commit('o', [{ kind: 'create', doc: record('o') }]);
    // Act
    clock.advance(59_999);
    const before = await store.readInbox('o', 'inbox:c:e-1');
    clock.advance(1);
    const after = await store.readInbox('o', 'inbox:c:e-1');
    // Assess
    expect(before?.doc.entryId).toBe('e-1');
    expect(after).toBeUndefined();
  });

  it('applies a commit and then throws StoreOutcomeUnknown when told to', async () => {
    // Prepare
    const store = new InMemoryOrderStore();
    store.injectFault({ on: 'commit', kind: 'outcomeUnknown' });
    // Act
    const act = store.commit('o', [{ kind: 'create', doc: record('o') }]);
    // Assess
    await expect(act).rejects.toMatchObject({ code: 'StoreOutcomeUnknown' });
    expect(await store.readInbox('o', 'inbox:c:e-1')).toBeDefined();
  });

  it('fails injected transient calls without side effects, as many times as asked', async () => {
    // Prepare
    const store = new InMemoryOrderStore();
    store.injectFault({ on: 'any', kind: 'transient', times: 2 });
    // Act
    const commit = store.commit('o', [{ kind: 'create', doc: record('o') }]);
    const read = store.readOrder('o');
    // Assess
    await expect(commit).rejects.toMatchObject({ code: 'StoreTransient', status: 503 });
    await expect(read).rejects.toMatchObject({ code: 'StoreTransient' });
    expect(await store.readInbox('o', 'inbox:c:e-1')).toBeUndefined();
    expect(store.calls).toEqual({ reads: 2, commits: 1 });
  });

  it('refuses empty batches and documents of another partition as StoreFailed', async () => {
    // Prepare
    const store = new InMemoryOrderStore();
    const foreign: StoreOperation = { kind: 'create', doc: record('other') };
    // Act
    const empty = store.commit('o', []);
    const crossPartition = store.commit('o', [foreign]);
    // Assess
    await expect(empty).rejects.toMatchObject({ code: 'StoreFailed', status: 400 });
    await expect(crossPartition).rejects.toMatchObject({ code: 'StoreFailed', status: 400 });
  });
});
