import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, startHarness, uniqueName } from './harness.js';
import type { Harness } from './harness.js';

/* Offers (provisioned throughput) as the SDK reads and changes them: per container, shared per database, autoscale. */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const status = (promise: Promise<unknown>): Promise<number | undefined> =>
  promise.then(
    () => undefined,
    (e: { code?: number }) => e.code,
  );

describe('offers', () => {
  it('give a container 400 RU/s by default, or what it asks for, readable with readOffer and the offers feed', async () => {
    const { database } = await h.client.databases.create({ id: uniqueName('db') });
    const { container: plain } = await database.containers.create({ id: 'plain', partitionKey: { paths: ['/pk'] } });
    const { container: fast } = await database.containers.create({
      id: 'fast',
      partitionKey: { paths: ['/pk'] },
      throughput: 1200,
    });
    const { resource: plainOffer } = await plain.readOffer();
    const { resource: fastOffer } = await fast.readOffer();
    const { resource: fastDef } = await fast.read();
    expect(plainOffer?.content?.offerThroughput).toBe(400);
    expect(fastOffer).toMatchObject({
      offerVersion: 'V2',
      offerResourceId: fastDef!._rid,
      resource: fastDef!._self,
      content: { offerThroughput: 1200 },
    });
    expect(fastOffer?._self).toContain(fastOffer!.id);
    const { resource: byId } = await h.client.offer(fastOffer!.id!).read();
    expect(byId?._rid).toBe(fastOffer!._rid);
    const { resources } = await h.client.offers
      .query({ query: 'SELECT * FROM root r WHERE r.id = @id', parameters: [{ name: '@id', value: fastOffer!.id! }] })
      .fetchAll();
    expect(resources).toHaveLength(1);
  });

  it('shared by a database leave its containers without their own, unless they ask', async () => {
    const { database } = await h.client.databases.create({ id: uniqueName('db'), throughput: 500 });
    expect((await database.readOffer()).resource?.content?.offerThroughput).toBe(500);
    const { container: shared } = await database.containers.create({ id: 'shared', partitionKey: { paths: ['/pk'] } });
    expect((await shared.readOffer()).resource).toBeUndefined();
    const { database: none } = await h.client.databases.create({ id: uniqueName('db') });
    expect((await none.readOffer()).resource).toBeUndefined();
  });

  it('record autoscale settings, for databases and containers', async () => {
    const { database } = await h.client.databases.create({ id: uniqueName('db'), maxThroughput: 4000 });
    expect((await database.readOffer()).resource?.content?.offerAutopilotSettings?.maxThroughput).toBe(4000);
    const { database: other } = await h.client.databases.create({ id: uniqueName('db') });
    const { container } = await other.containers.create({
      id: 'auto',
      partitionKey: { paths: ['/pk'] },
      maxThroughput: 10000,
    });
    const { resource } = await container.readOffer();
    expect(resource?.content).toMatchObject({
      offerThroughput: 1000,
      offerAutopilotSettings: { maxThroughput: 10000 },
    });
  });

  it('are replaced with a new throughput; 400 for a body naming another offer or a throughput the service refuses', async () => {
    const container = await h.container();
    const { resource: offer } = await container.readOffer();
    const { resource: replaced } = await h.client
      .offer(offer!.id!)
      .replace({ ...offer!, content: { ...offer!.content!, offerThroughput: 800 } });
    expect(replaced?.content?.offerThroughput).toBe(800);
    expect((await container.readOffer()).resource?.content?.offerThroughput).toBe(800);
    expect(await status(h.client.offer(offer!.id!).replace({ ...offer!, _rid: 'NotAllowed' } as never))).toBe(400);
    expect(
      await status(
        h.client.offer(offer!.id!).replace({ ...offer!, content: { ...offer!.content!, offerThroughput: 450 } }),
      ),
    ).toBe(400);
    const refused = await rawRequest(h.emulator, 'POST', `/dbs/${(await h.database()).id}/colls`, {
      body: JSON.stringify({ id: 'slow' }),
      headers: { 'x-ms-offer-throughput': '100' },
    });
    expect(refused.status).toBe(400);
  });

  it('go with their container', async () => {
    const container = await h.container();
    const { resource: offer } = await container.readOffer();
    await container.delete();
    expect(await status(h.client.offer(offer!.id!).read())).toBe(404);
  });
});

describe('container read headers', () => {
  it('report a complete index transformation, and quota and usage when asked', async () => {
    const container = await h.container();
    await container.items.create({ id: 'q', orderId: 'q', payload: 'x'.repeat(3000) });
    const plain = await container.read();
    expect(plain.headers['x-ms-documentdb-collection-index-transformation-progress']).toBe('100');
    expect(plain.headers['x-ms-resource-quota']).toBeUndefined();
    const { headers } = await container.read({ populateQuotaInfo: true });
    expect(String(headers['x-ms-resource-quota'])).toContain('collectionSize=10485760;');
    expect(String(headers['x-ms-resource-usage'])).toMatch(/documentsCount=1;collectionSize=[1-9]\d*;/);
  });
});
