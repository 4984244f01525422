import { describe, expect, it } from 'vitest';
import { entryRecordId } from '../../src/core/documents/documentIds.js';
import type { OrderWrite } from '../../src/core/ports/orderStore.js';
import { InMemoryOrderStore } from '../support/fakes/index.js';
import { applied, describeOrderStoreContract, orderDoc } from './contracts/orderStoreContract.js';

describeOrderStoreContract('in memory', () => new InMemoryOrderStore());

describe('InMemoryOrderStore specifics', () => {
  const write = (orderId: string, entryOf = orderId): OrderWrite => ({
    entry: { create: applied(entryOf, 'e-1') },
    order: { doc: orderDoc(orderId), etag: undefined },
  });
  const id = entryRecordId('order-processor', 'e-1');

  it('writes a commit and then answers unknown when told to', async () => {
    // Prepare
    const store = new InMemoryOrderStore();
    store.injectFault({ on: 'commit', kind: 'outcomeUnknown' });
    // Act
    const outcome = await store.commit('o', write('o'));
    // Assess
    expect(outcome.kind).toBe('unknown');
    expect(await store.readEntry('o', id)).toBeDefined();
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
    expect(await store.readEntry('o', id)).toBeUndefined();
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
