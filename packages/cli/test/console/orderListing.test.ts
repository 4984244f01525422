import { CosmosClient, type Container } from '@azure/cosmos';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start as startCosmos, type CosmosEmulator } from '@ledger-convoy/cosmos-emulator';
import { CosmosOrderListing } from '../../src/console/cosmosOrderListing.js';
import type { OrderPage, OrderTab } from '../../src/console/orderListing.js';

let cosmos: CosmosEmulator;
let client: CosmosClient;
let container: Container;

const order = (orderId: string, updatedAt: string, extra: { parked?: number[]; rejected?: number[] } = {}) => ({
  id: 'order',
  docType: 'order',
  orderId,
  lastSequence: 1,
  state: { status: 'open' },
  updatedAt,
  parked: (extra.parked ?? []).map((sequence) => ({
    sequence,
    entryId: `${orderId}-e${sequence}`,
    requestHash: 'h',
    parkedAt: updatedAt,
  })),
  rejected: (extra.rejected ?? []).map((sequence) => ({
    sequence,
    entryId: `${orderId}-e${sequence}`,
    requestHash: 'h',
    reason: 'InvalidTransition',
    rejectedAt: updatedAt,
    alerted: true,
  })),
});

/** Every page of a list, following continuations. */
async function allPages(listing: CosmosOrderListing, tab: OrderTab, size: number): Promise<OrderPage[]> {
  const pages: OrderPage[] = [];
  let continuation: string | undefined;
  do {
    const page = await listing.page(tab, { size, continuation });
    pages.push(page);
    continuation = page.continuation;
  } while (continuation !== undefined && pages.length < 50);
  return pages;
}

beforeAll(async () => {
  cosmos = await startCosmos({ port: 0, partitionKeyRanges: 2 });
  client = new CosmosClient({
    endpoint: cosmos.endpoint,
    key: cosmos.key,
    connectionPolicy: { enableEndpointDiscovery: false },
  });
  const { database } = await client.databases.createIfNotExists({ id: 'convoy' });
  ({ container } = await database.containers.createIfNotExists({
    id: 'orders',
    partitionKey: { paths: ['/orderId'] },
  }));
  // Seven orders: four with parked entries, two rejected, one held; three changed in the same millisecond.
  const docs = [
    order('o-1', '2026-01-01T00:00:01.000Z', { parked: [3] }),
    order('o-2', '2026-01-01T00:00:02.000Z'),
    order('o-3', '2026-01-01T00:00:05.000Z', { parked: [4, 5], rejected: [3] }),
    order('o-4', '2026-01-01T00:00:05.000Z', { parked: [2] }),
    order('o-5', '2026-01-01T00:00:05.000Z', { rejected: [2] }),
    order('o-6', '2026-01-01T00:00:03.000Z', { parked: [9] }),
    order('o-7', '2026-01-01T00:00:04.000Z'),
  ];
  for (const doc of docs) await container.items.create(doc);
  const heldAt = '2026-01-01T00:01:00.000Z';
  await container.items.create({
    id: 'outbox-hold:o-7',
    docType: 'outbox-hold',
    orderId: 'o-7',
    version: 2,
    targets: ['webhook'],
    heldThrough: 1,
    since: heldAt,
    nextAttempt: heldAt,
    attempts: 0,
    lastError: 'HTTP 503',
    updatedAt: heldAt,
  });
}, 60_000);

afterAll(async () => {
  client?.dispose();
  await cosmos?.close();
});

describe("the console's order lists (Cosmos DB adapter, two partition key ranges)", () => {
  it('pages the parked orders by orderId, each once, by continuation', async () => {
    const pages = await allPages(new CosmosOrderListing(container), 'parked', 2);
    expect(pages.map((p) => p.orders.map((o) => o.orderId))).toEqual([
      ['o-1', 'o-3'],
      ['o-4', 'o-6'],
    ]);
    expect(pages.at(-1)?.continuation).toBeUndefined();
    expect(pages[0]!.orders[1]).toMatchObject({
      orderId: 'o-3',
      status: 'open',
      parked: [4, 5],
      rejected: [{ sequence: 3, entryId: 'o-3-e3', reason: 'InvalidTransition' }],
    });
  });

  it('continues after the last order shown even when orders are added before it meanwhile', async () => {
    const listing = new CosmosOrderListing(container);
    const first = await listing.page('parked', { size: 2 });
    await container.items.create(order('o-0', '2026-01-01T00:00:09.000Z', { parked: [2] }));
    try {
      const second = await listing.page('parked', { size: 2, continuation: first.continuation });
      expect(second.orders.map((o) => o.orderId)).toEqual(['o-4', 'o-6']);
    } finally {
      await container.item('order', 'o-0').delete();
    }
  });

  it('lists the rejected and the held orders', async () => {
    const listing = new CosmosOrderListing(container);
    expect((await listing.page('rejected', { size: 10 })).orders.map((o) => o.orderId)).toEqual(['o-3', 'o-5']);
    expect((await listing.page('held', { size: 10 })).orders).toEqual([
      expect.objectContaining({ orderId: 'o-7', heldTargets: ['webhook'], changedAt: '2026-01-01T00:01:00.000Z' }),
    ]);
  });

  it('pages every order, most recently changed first, each once although three changed in the same millisecond', async () => {
    const pages = await allPages(new CosmosOrderListing(container), 'recent', 2);
    const ids = pages.flatMap((p) => p.orders.map((o) => o.orderId));
    expect(ids).toHaveLength(7);
    expect(new Set(ids).size).toBe(7);
    expect(ids.slice(0, 3).sort()).toEqual(['o-3', 'o-4', 'o-5']);
    expect(ids.slice(3)).toEqual(['o-7', 'o-6', 'o-2', 'o-1']);
  });

  it('counts the waiting orders for the overview, and refuses a continuation it did not make', async () => {
    const listing = new CosmosOrderListing(container);
    expect(await listing.counts()).toEqual({ parked: 4, rejected: 2, held: 1 });
    await expect(listing.page('parked', { size: 2, continuation: 'not-ours' })).rejects.toMatchObject({
      code: 'InvalidOption',
    });
  });
});
