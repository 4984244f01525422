import { CosmosClient, PermissionMode } from '@azure/cosmos';
import type { Container, Database } from '@azure/cosmos';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { rawRequest, startHarness, uniqueName } from './harness.js';
import type { Harness } from './harness.js';

/*
 * Users, permissions and the resource tokens permissions hand out, used as a client's only credential:
 * scoped to the granted resource, its mode and its partition key, as Azure scopes them.
 */

let h: Harness;
let db: Database;
let orders: Container;
let other: Container;
beforeAll(async () => {
  h = await startHarness();
  db = await h.database();
  orders = await h.container();
  other = await h.container();
  await orders.items.create({ id: 'o1', orderId: 'A' });
  await orders.items.create({ id: 'o2', orderId: 'B' });
  await other.items.create({ id: 'x1', orderId: 'A' });
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  vi.useRealTimers();
});

const status = (promise: Promise<unknown>): Promise<number | undefined> =>
  promise.then(
    () => undefined,
    (e: { code?: number }) => e.code,
  );

async function token(definition: {
  permissionMode: PermissionMode;
  resource: string;
  resourcePartitionKey?: unknown[];
}): Promise<string> {
  const { user } = await db.users.create({ id: uniqueName('user') });
  const { resource } = await user.permissions.create({ id: uniqueName('perm'), ...definition } as never);
  expect(resource?._token).toMatch(/^type=resource&ver=1\.0&sig=/);
  return resource!._token;
}

function tokenClient(resourceTokens: Record<string, string>): CosmosClient {
  return new CosmosClient({
    endpoint: h.emulator.endpoint,
    resourceTokens,
    connectionPolicy: {
      enableEndpointDiscovery: false,
      retryOptions: { maxRetryAttemptCount: 0, fixedRetryIntervalInMilliseconds: 0, maxWaitTimeInSeconds: 0 },
    },
  });
}

describe('users and permissions', () => {
  it('are created, listed, queried, read, renamed by replace, upserted and deleted', async () => {
    const id = uniqueName('u');
    await db.users.create({ id });
    expect(await status(db.users.create({ id }))).toBe(409);
    const { resources } = await db.users
      .query({ query: 'SELECT * FROM r WHERE r.id = @id', parameters: [{ name: '@id', value: id }] })
      .fetchAll();
    expect(resources).toHaveLength(1);
    const user = db.user(id);
    await user.permissions.create({ id: 'p', permissionMode: PermissionMode.Read, resource: orders.url });
    const { resource: renamed } = await user.replace({ id: `${id}-renamed` });
    expect(renamed?.id).toBe(`${id}-renamed`);
    expect(await status(user.read())).toBe(404);
    // The permissions moved with their user.
    const { resources: permissions } = await db.user(`${id}-renamed`).permissions.readAll().fetchAll();
    expect(permissions.map((p) => p.id)).toEqual(['p']);
    const { resource: upserted } = await db
      .user(`${id}-renamed`)
      .permissions.upsert({ id: 'p', permissionMode: PermissionMode.All, resource: orders.url });
    expect(upserted?.permissionMode).toBe(PermissionMode.All);
    await db.user(`${id}-renamed`).delete();
    expect(await status(db.user(`${id}-renamed`).permission('p').read())).toBe(404);
  });

  it('refuse a permission without a valid mode or resource (400)', async () => {
    const { user } = await db.users.create({ id: uniqueName('u') });
    expect(
      await status(
        user.permissions.create({ id: 'bad', permissionMode: 'write' as PermissionMode, resource: orders.url }),
      ),
    ).toBe(400);
    expect(
      await status(user.permissions.create({ id: 'bad', permissionMode: PermissionMode.Read, resource: '' })),
    ).toBe(400);
  });
});

describe('resource tokens', () => {
  it('let a Read permission on a container read and query it, and nothing more (403)', async () => {
    const client = tokenClient({
      [orders.id]: await token({ permissionMode: PermissionMode.Read, resource: orders.url }),
    });
    const container = client.database(db.id).container(orders.id);
    expect((await container.read()).statusCode).toBe(200);
    const { resources } = await container.items.readAll().fetchAll();
    expect(resources.map((d) => d.id).sort()).toEqual(['o1', 'o2']);
    expect((await container.item('o1', 'A').read()).statusCode).toBe(200);
    expect(await status(container.items.create({ id: 'new', orderId: 'A' }))).toBe(403);
    expect(await status(container.delete())).toBe(403);
    client.dispose();
  });

  it('do not reach another container or the database above (403)', async () => {
    const grant = await token({ permissionMode: PermissionMode.All, resource: orders.url });
    const client = tokenClient({ [orders.id]: grant, [other.id]: grant, [db.id]: grant });
    expect(await status(client.database(db.id).container(other.id).item('x1', 'A').read())).toBe(403);
    expect(await status(client.database(db.id).read())).toBe(403);
    client.dispose();
  });

  it('limited to a partition key allow that key only', async () => {
    const client = tokenClient({
      [orders.id]: await token({
        permissionMode: PermissionMode.All,
        resource: orders.url,
        resourcePartitionKey: ['A'],
      }),
    });
    const container = client.database(db.id).container(orders.id);
    expect((await container.items.create({ id: 'a-new', orderId: 'A' })).statusCode).toBe(201);
    expect(await status(container.items.create({ id: 'b-new', orderId: 'B' }))).toBe(403);
    client.dispose();
  });

  it('accept a permission granted by rid link (_self), document-level included', async () => {
    const { resource: containerDef } = await orders.read();
    const { resource: doc } = await orders.item('o2', 'B').read();
    const client = tokenClient({
      [orders.id]: await token({ permissionMode: PermissionMode.All, resource: containerDef!._self }),
    });
    expect((await client.database(db.id).container(orders.id).item('o1', 'A').read()).statusCode).toBe(200);
    const docOnly = tokenClient({ o2: await token({ permissionMode: PermissionMode.Read, resource: doc!._self }) });
    expect((await docOnly.database(db.id).container(orders.id).item('o2', 'B').read()).statusCode).toBe(200);
    client.dispose();
    docOnly.dispose();
  });

  it('are refused when forged (401) or expired (401)', async () => {
    const grant = await token({ permissionMode: PermissionMode.Read, resource: orders.url });
    const forged = grant.replace(/sig=(.)/, (_m, first: string) => `sig=${first === 'A' ? 'B' : 'A'}`);
    const path = `/dbs/${db.id}/colls/${orders.id}`;
    expect(
      (await rawRequest(h.emulator, 'GET', path, { headers: { authorization: encodeURIComponent(forged) } })).status,
    ).toBe(401);
    expect(
      (await rawRequest(h.emulator, 'GET', path, { headers: { authorization: encodeURIComponent(grant) } })).status,
    ).toBe(200);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 2 * 3600 * 1000);
    expect(
      (await rawRequest(h.emulator, 'GET', path, { headers: { authorization: encodeURIComponent(grant) } })).status,
    ).toBe(401);
  });
});
