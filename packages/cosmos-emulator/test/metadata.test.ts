import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, SUITE_PARTITION_KEY_RANGES, uniqueName } from './harness.js';
import type { Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe('account, databases, containers', () => {
  it('serves the database account with session consistency', async () => {
    const { resource } = await h.client.getDatabaseAccount();
    expect(resource?.consistencyPolicy).toBe('Session');
  });

  it('creates, reads, lists and deletes databases; 409 for a duplicate, 404 after delete', async () => {
    const id = uniqueName('db');
    const created = await h.client.databases.create({ id });
    expect(created.statusCode).toBe(201);
    expect(created.resource?._etag).toMatch(/^".+"$/);
    expect((await h.client.database(id).read()).statusCode).toBe(200);
    const { resources } = await h.client.databases.readAll().fetchAll();
    expect(resources.map((d) => d.id)).toContain(id);
    const dup = await h.client.databases.create({ id }).then(
      () => undefined,
      (e: { code: number }) => e.code,
    );
    expect(dup).toBe(409);
    expect((await h.client.database(id).delete()).statusCode).toBe(204);
    const gone = await h.client
      .database(id)
      .read()
      .then(
        () => undefined,
        (e: { code: number }) => e.code,
      );
    expect(gone).toBe(404);
  });

  it('stores the partition key, defaultTtl and indexing policy of a container', async () => {
    const { database } = await h.client.databases.createIfNotExists({ id: uniqueName('convoy') });
    const indexingPolicy = {
      indexingMode: 'consistent' as const,
      automatic: true,
      includedPaths: [{ path: '/orderId/?' }],
      excludedPaths: [{ path: '/*' }],
    };
    const { container } = await database.containers.createIfNotExists({
      id: 'orders',
      partitionKey: { paths: ['/orderId'] },
      defaultTtl: -1,
      indexingPolicy,
    });
    const { resource } = await container.read();
    expect(resource?.partitionKey?.paths).toEqual(['/orderId']);
    expect(resource?.defaultTtl).toBe(-1);
    // As the service does, the emulator adds the `_etag` exclusion to every policy that indexes anything.
    expect(resource?.indexingPolicy).toMatchObject({
      ...indexingPolicy,
      excludedPaths: [...indexingPolicy.excludedPaths, { path: '/"_etag"/?' }],
    });
    const again = await database.containers.createIfNotExists({ id: 'orders', partitionKey: { paths: ['/orderId'] } });
    expect(again.statusCode).toBe(200);
    const replaced = await container.replace({ id: 'orders', partitionKey: { paths: ['/orderId'] }, defaultTtl: 60 });
    expect(replaced.resource?.defaultTtl).toBe(60);
    const { resources: ranges } = await container.readPartitionKeyRanges().fetchAll();
    // The ranges tile the hash space: "" to "FF", each starting where the previous one ends.
    expect(ranges.map((r) => r.id)).toEqual(Array.from({ length: SUITE_PARTITION_KEY_RANGES }, (_, i) => String(i)));
    expect(ranges[0]?.minInclusive).toBe('');
    expect(ranges.at(-1)?.maxExclusive).toBe('FF');
    ranges.slice(1).forEach((range, i) => expect(range.minInclusive).toBe(ranges[i]?.maxExclusive));
    expect((await container.delete()).statusCode).toBe(204);
  });

  it('supports hierarchical partition keys', async () => {
    const c = await h.container({ partitionKey: ['/tenant', '/orderId'] });
    await c.items.create({ id: 'h1', tenant: 't', orderId: 'o' });
    expect((await c.item('h1', ['t', 'o']).read()).statusCode).toBe(200);
    expect((await c.item('h1', ['t', 'x']).read()).statusCode).toBe(404);
  });
});
