import type { Container } from '@azure/cosmos';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, startHarness, uniqueName } from './harness.js';
import type { Harness } from './harness.js';

/*
 * What the service checks and fills in beyond plain CRUD: container definitions (partition key paths,
 * indexing defaults, geospatial config, TTL values), id rules, header encoding of non-ASCII names,
 * partition key delete, the conflicts feed, client encryption key metadata and recreated containers.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const failure = (promise: Promise<unknown>): Promise<{ code?: number; message?: string }> =>
  promise.then(
    () => ({}),
    (e: { code?: number; message?: string }) => e,
  );

describe('container definitions', () => {
  it('refuse invalid partition key paths with 400 naming the path', async () => {
    const db = await h.database();
    const spaced = await failure(db.containers.create({ id: uniqueName('c'), partitionKey: '/id ds' }));
    expect(spaced.code).toBe(400);
    expect(spaced.message).toContain("path '/id ds' could not be accepted");
    const relative = await failure(
      db.containers.create({
        id: uniqueName('c'),
        partitionKey: { paths: ['id', '/id2'], kind: 'MultiHash' as never, version: 2 },
      }),
    );
    expect(relative.message).toContain("path 'id' could not be accepted");
    for (const partitionKey of [
      { paths: '/id' },
      { paths: ['/a/'] },
      { paths: ['/a/*'] },
      { paths: ['/a', '/b'], kind: 'Hash' },
    ]) {
      expect(
        (await failure(db.containers.create({ id: uniqueName('c'), partitionKey: partitionKey as never }))).code,
      ).toBe(400);
    }
  });

  it('complete the indexing policy as the service returns it', async () => {
    const db = await h.database();
    const { resource: bare } = await db.containers.create({ id: uniqueName('c'), partitionKey: '/pk' });
    expect(bare?.indexingPolicy).toEqual({
      indexingMode: 'consistent',
      automatic: true,
      includedPaths: [{ path: '/*' }],
      excludedPaths: [{ path: '/"_etag"/?' }],
    });
    expect(bare?.geospatialConfig).toEqual({ type: 'Geography' });
    const { resource: custom } = await db.containers.create({
      id: uniqueName('c'),
      partitionKey: '/pk',
      indexingPolicy: { indexingMode: 'Consistent' as never, excludedPaths: [{ path: '/"systemMetadata"/*' }] },
    });
    expect(custom?.indexingPolicy?.indexingMode).toBe('consistent');
    expect(custom?.indexingPolicy?.excludedPaths?.map((p) => p.path)).toEqual(['/"systemMetadata"/*', '/"_etag"/?']);
    const { resource: none } = await db.containers.create({
      id: uniqueName('c'),
      partitionKey: '/pk',
      indexingPolicy: { indexingMode: 'none' as never, automatic: false },
    });
    expect(none?.indexingPolicy).toMatchObject({ indexingMode: 'none', includedPaths: [], excludedPaths: [] });
    expect(
      (
        await failure(
          db.containers.create({
            id: uniqueName('c'),
            partitionKey: '/pk',
            indexingPolicy: { indexingMode: 'eager' as never },
          }),
        )
      ).code,
    ).toBe(400);
  });

  it('keep a geospatial type given on create or replace', async () => {
    const db = await h.database();
    const { resource, container } = await db.containers.create({
      id: uniqueName('c'),
      partitionKey: '/pk',
      geospatialConfig: { type: 'Geometry' as never },
    });
    expect(resource?.geospatialConfig?.type).toBe('Geometry');
    const { resource: replaced } = await container.replace({
      ...resource!,
      geospatialConfig: { type: 'Geography' as never },
    });
    expect(replaced?.geospatialConfig?.type).toBe('Geography');
    expect((await failure(container.replace({ ...resource!, geospatialConfig: { type: 'Flat' as never } }))).code).toBe(
      400,
    );
  });

  it('refuse defaultTtl null, 0 or below -1, and an item ttl that is not -1 or positive', async () => {
    const db = await h.database();
    for (const defaultTtl of [null, 0, -10, 1.5]) {
      expect(
        (
          await failure(
            db.containers.create({ id: uniqueName('c'), partitionKey: '/pk', defaultTtl: defaultTtl as never }),
          )
        ).code,
      ).toBe(400);
    }
    const { container } = await db.containers.create({ id: uniqueName('c'), partitionKey: '/pk', defaultTtl: 100 });
    for (const ttl of [null, -10, 0, 'soon'])
      expect((await failure(container.items.create({ id: uniqueName('i'), pk: 'p', ttl: ttl as never }))).code).toBe(
        400,
      );
    expect((await container.items.create({ id: uniqueName('i'), pk: 'p', ttl: -1 })).statusCode).toBe(201);
  });

  it('refuse a numeric item ttl that is not -1 or positive in a container without TTL too, in bulk as alone', async () => {
    const container = await h.container({ partitionKey: ['/pk'] });
    for (const ttl of [-10, 0, 1.5])
      expect((await failure(container.items.create({ id: uniqueName('i'), pk: 'p', ttl }))).code).toBe(400);
    const [refused, kept] = await container.items.executeBulkOperations([
      { operationType: 'Create', partitionKey: 'p', resourceBody: { id: uniqueName('i'), pk: 'p', ttl: -10 } },
      { operationType: 'Create', partitionKey: 'p', resourceBody: { id: uniqueName('i'), pk: 'p', ttl: 30 } },
    ]);
    expect(refused?.response?.statusCode ?? refused?.error?.code).toBe(400);
    expect(kept?.response?.statusCode).toBe(201);
  });
});

describe('ids and names', () => {
  let c: Container;
  beforeAll(async () => {
    c = await h.container();
  });

  it('accept ? in a document id: the SDK sends it unencoded and the whole target is the path', async () => {
    await c.items.create({ id: 'a?b', orderId: 'ids' });
    expect((await c.item('a?b', 'ids').read()).resource?.id).toBe('a?b');
    expect((await c.item('a?b', 'ids').delete()).statusCode).toBe(204);
  });

  it('create an id ending in whitespace, which cannot then be addressed by name (401, as on the service)', async () => {
    expect((await c.items.create({ id: 'trailing ', orderId: 'ids' })).statusCode).toBe(201);
    expect((await failure(c.item('trailing ', 'ids').read())).code).toBe(401);
    expect((await c.item(' leading', 'ids').read()).statusCode).toBe(404);
    const { resources } = await c.items
      .query('SELECT VALUE c.id FROM c WHERE c.id = "trailing "', { partitionKey: 'ids' })
      .fetchAll();
    expect(resources).toEqual(['trailing ']);
  });

  it('serve databases and containers with non-ASCII names (header values percent-encoded)', async () => {
    const { database } = await h.client.databases.create({ id: uniqueName('données鱀') });
    const { container } = await database.containers.create({ id: 'café鱀', partitionKey: '/pk' });
    const created = await container.items.create({ id: 'x', pk: 'p' });
    expect(created.statusCode).toBe(201);
    expect(created.headers['x-ms-alt-content-path']).toBe(
      `dbs/${encodeURIComponent(database.id)}/colls/${encodeURIComponent('café鱀')}`,
    );
    expect((await container.item('x', 'p').read()).statusCode).toBe(200);
    expect((await container.read()).statusCode).toBe(200);
  });
});

describe('partition key delete, conflicts, client encryption keys', () => {
  it('deleteAllItemsForPartitionKey removes that partition only', async () => {
    const c = await h.container();
    for (const [id, orderId] of [
      ['1', 'gone'],
      ['2', 'gone'],
      ['3', 'kept'],
    ])
      await c.items.create({ id, orderId });
    expect((await c.deleteAllItemsForPartitionKey('gone')).statusCode).toBe(200);
    expect((await c.item('1', 'gone').read()).statusCode).toBe(404);
    expect((await c.item('2', 'gone').read()).statusCode).toBe(404);
    expect((await c.item('3', 'kept').read()).statusCode).toBe(200);
  });

  it('serve an empty conflicts feed (one region, no conflicts)', async () => {
    const c = await h.container();
    expect((await c.conflicts.readAll().fetchAll()).resources).toEqual([]);
    expect((await c.conflicts.query('SELECT * FROM c').fetchAll()).resources).toEqual([]);
    // (The SDK's `conflict(id).read()` signs as a user read, which the service refuses with 401; sent right, 404.)
    expect((await rawRequest(h.emulator, 'GET', `/dbs/${c.database.id}/colls/${c.id}/conflicts/none`)).status).toBe(
      404,
    );
  });

  it('keep client encryption key metadata: create, read, list, query, replace (If-Match), 409 and 400', async () => {
    const db = await h.database();
    const path = `/dbs/${db.id}/clientencryptionkeys`;
    const key = {
      id: uniqueName('cek'),
      encryptionAlgorithm: 'AEAD_AES_256_CBC_HMAC_SHA256',
      wrappedDataEncryptionKey: Buffer.from('wrapped').toString('base64'),
      keyWrapMetadata: { type: 'local', name: 'k1', value: 'path1', algorithm: 'RSA-OAEP' },
    };
    const created = await rawRequest(h.emulator, 'POST', path, { body: JSON.stringify(key) });
    expect(created.status).toBe(201);
    const stored = (await created.json()) as { _etag: string; _self: string };
    expect(stored._self).toMatch(/clientencryptionkeys\/.+\/$/);
    expect((await rawRequest(h.emulator, 'POST', path, { body: JSON.stringify(key) })).status).toBe(409);
    expect((await rawRequest(h.emulator, 'POST', path, { body: JSON.stringify({ id: 'incomplete' }) })).status).toBe(
      400,
    );
    const read = (await (await rawRequest(h.emulator, 'GET', `${path}/${key.id}`)).json()) as {
      keyWrapMetadata: { name: string };
    };
    expect(read.keyWrapMetadata.name).toBe('k1');
    // The SDK rereads a key with If-None-Match when its key encryption key was revoked: 304 tells it the key was not rewrapped.
    expect(
      (await rawRequest(h.emulator, 'GET', `${path}/${key.id}`, { headers: { 'if-none-match': stored._etag } })).status,
    ).toBe(304);
    const listed = (await (await rawRequest(h.emulator, 'GET', path)).json()) as { ClientEncryptionKeys: unknown[] };
    expect(listed.ClientEncryptionKeys).toHaveLength(1);
    const rewrapped = { ...key, keyWrapMetadata: { ...key.keyWrapMetadata, name: 'k2' } };
    expect(
      (
        await rawRequest(h.emulator, 'PUT', `${path}/${key.id}`, {
          body: JSON.stringify(rewrapped),
          headers: { 'if-match': '"stale"' },
        })
      ).status,
    ).toBe(412);
    expect(
      (
        await rawRequest(h.emulator, 'PUT', `${path}/${key.id}`, {
          body: JSON.stringify(rewrapped),
          headers: { 'if-match': stored._etag },
        })
      ).status,
    ).toBe(200);
  });

  it('answer 400/1024 to a request prepared for a container since deleted and recreated under the same name', async () => {
    const db = await h.database();
    const { container, resource } = await db.containers.create({ id: uniqueName('c'), partitionKey: '/pk' });
    const path = `/dbs/${db.id}/colls/${container.id}/docs`;
    const body = JSON.stringify({ id: 'd', pk: 'p' });
    const headers = { 'x-ms-documentdb-partitionkey': '["p"]', 'x-ms-cosmos-intended-collection-rid': resource!._rid };
    expect((await rawRequest(h.emulator, 'POST', path, { body, headers })).status).toBe(201);
    await container.delete();
    await db.containers.create({ id: container.id, partitionKey: '/pk' });
    const stale = await rawRequest(h.emulator, 'POST', path, { body, headers });
    expect(stale.status).toBe(400);
    expect(stale.headers.get('x-ms-substatus')).toBe('1024');
  });
});
