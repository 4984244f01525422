import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PermissionMode } from '@azure/cosmos';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness } from './harness.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('--data-dir durability', () => {
  it('keeps acknowledged databases, containers, documents and batches across a restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'cosmos-emu-'));
    dirs.push(dataDir);
    const first = await startHarness({ dataDir });
    const db = (await first.client.databases.create({ id: 'convoy' })).database;
    const c = (await db.containers.create({ id: 'orders', partitionKey: { paths: ['/orderId'] }, defaultTtl: -1 }))
      .container;
    const { resource } = await c.items.create({ id: 'state', orderId: 'o-1', seq: 1 });
    await c.items.batch(
      [
        { operationType: 'Create', resourceBody: { id: 'inbox-1', orderId: 'o-1' } },
        {
          operationType: 'Replace',
          id: 'state',
          resourceBody: { id: 'state', orderId: 'o-1', seq: 2 },
          ifMatch: resource!._etag,
        },
      ],
      'o-1',
    );
    await c.items.create({ id: 'doomed', orderId: 'o-2' });
    await c.item('doomed', 'o-2').delete();
    const failed = await c.items.batch(
      [
        { operationType: 'Create', resourceBody: { id: 'never', orderId: 'o-1' } },
        { operationType: 'Create', resourceBody: { id: 'inbox-1', orderId: 'o-1' } },
      ],
      'o-1',
    );
    expect(failed.code).toBe(207);
    await first.close();

    const second = await startHarness({ dataDir });
    const c2 = second.client.database('convoy').container('orders');
    const state = await c2.item('state', 'o-1').read();
    expect(state.resource).toMatchObject({ seq: 2 });
    expect((await c2.item('inbox-1', 'o-1').read()).statusCode).toBe(200);
    expect((await c2.item('doomed', 'o-2').read()).statusCode).toBe(404);
    expect((await c2.item('never', 'o-1').read()).statusCode).toBe(404);
    expect((await c2.read()).resource?.defaultTtl).toBe(-1);
    // Etags survive, so a conditional write prepared before the restart still works.
    const replaced = await c2
      .item('state', 'o-1')
      .replace(
        { id: 'state', orderId: 'o-1', seq: 3 },
        { accessCondition: { type: 'IfMatch', condition: state.resource!._etag } },
      );
    expect(replaced.statusCode).toBe(200);
    // New documents get fresh resource ids after replay.
    const fresh = await c2.items.create({ id: 'new', orderId: 'o-3' });
    const others = await c2.items.query('SELECT VALUE c._rid FROM c').fetchAll();
    expect(new Set(others.resources).size).toBe(others.resources.length);
    expect(fresh.statusCode).toBe(201);
    await second.close();
  });

  it("keeps offers, users, permissions and scripts across a restart (renames and deletes included), and a stored procedure's writes", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'cosmos-emu-'));
    dirs.push(dataDir);
    const first = await startHarness({ dataDir });
    const db = (await first.client.databases.create({ id: 'meta' })).database;
    const c = (await db.containers.create({ id: 'scripts', partitionKey: { paths: ['/pk'] }, throughput: 700 }))
      .container;
    const { user } = await db.users.create({ id: 'before' });
    await user.permissions.create({ id: 'p', permissionMode: PermissionMode.Read, resource: c.url });
    await user.replace({ id: 'after' });
    await db.users.create({ id: 'deleted' });
    await db.user('deleted').delete();
    await c.scripts.storedProcedures.create({
      id: 'put',
      body: 'function (id) { var c = getContext().getCollection(); c.createDocument(c.getSelfLink(), { id: id, pk: "k" }); }',
    });
    await c.scripts.storedProcedure('put').execute('k', ['written']);
    const { resource: offer } = await c.readOffer();
    await first.close();

    const second = await startHarness({ dataDir });
    const db2 = second.client.database('meta');
    const c2 = db2.container('scripts');
    expect((await db2.users.readAll().fetchAll()).resources.map((u) => u.id)).toEqual(['after']);
    expect((await db2.user('after').permissions.readAll().fetchAll()).resources.map((p) => p.id)).toEqual(['p']);
    expect((await c2.readOffer()).resource).toMatchObject({ id: offer!.id, content: { offerThroughput: 700 } });
    expect((await c2.item('written', 'k').read()).statusCode).toBe(200);
    await c2.scripts.storedProcedure('put').execute('k', ['again']);
    expect((await c2.item('again', 'k').read()).statusCode).toBe(200);
    await second.close();
  });

  it('keeps data in memory only without a data dir', async () => {
    const first = await startHarness();
    await first.client.databases.create({ id: 'ephemeral' });
    await first.close();
    const second = await startHarness();
    const gone = await second.client
      .database('ephemeral')
      .read()
      .then(
        () => 200,
        (e: { code: number }) => e.code,
      );
    expect(gone).toBe(404);
    await second.close();
  });
});
