import type { Container } from '@azure/cosmos';
import { TriggerOperation, TriggerType } from '@azure/cosmos';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, uniqueName } from './harness.js';
import type { Harness } from './harness.js';

/*
 * Pre/post triggers named by a write (they run in the write's transaction) and user-defined functions
 * called from queries (`udf.<id>(…)`), through the unmodified SDK.
 */

let h: Harness;
let c: Container;
beforeAll(async () => {
  h = await startHarness();
  c = await h.container();
  const triggers = [
    {
      id: 'stamp',
      triggerType: TriggerType.Pre,
      triggerOperation: TriggerOperation.All,
      body: 'function () { var r = getContext().getRequest(); var b = r.getBody(); b.stamped = r.getOperationType(); r.setBody(b); }',
    },
    {
      id: 'audit',
      triggerType: TriggerType.Pre,
      triggerOperation: TriggerOperation.Create,
      body: 'function () { var c = getContext().getCollection(); var b = getContext().getRequest().getBody(); c.createDocument(c.getSelfLink(), { id: "audit-" + b.id, orderId: b.orderId }); }',
    },
    {
      id: 'veto',
      triggerType: TriggerType.Post,
      triggerOperation: TriggerOperation.All,
      body: 'function () { if (getContext().getResponse().getBody().veto) throw new Error("vetoed"); }',
    },
    {
      id: 'annotate',
      triggerType: TriggerType.Post,
      triggerOperation: TriggerOperation.Create,
      body: 'function () { var r = getContext().getResponse(); var b = r.getBody(); b.seenByPost = true; r.setBody(b); }',
    },
    {
      id: 'onDelete',
      triggerType: TriggerType.Post,
      triggerOperation: TriggerOperation.Delete,
      body: 'function () {}',
    },
  ];
  for (const trigger of triggers) await c.scripts.triggers.create(trigger);
});
afterAll(async () => {
  await h.close();
});

const status = (promise: Promise<unknown>): Promise<number | undefined> =>
  promise.then(
    () => undefined,
    (e: { code?: number }) => e.code,
  );

describe('triggers', () => {
  it('are validated on create: a type and an operation the service knows', async () => {
    expect(
      await status(
        c.scripts.triggers.create({
          id: uniqueName('t'),
          triggerType: 'Sometimes' as TriggerType,
          triggerOperation: TriggerOperation.All,
          body: 'function () {}',
        }),
      ),
    ).toBe(400);
    expect(
      await status(
        c.scripts.triggers.create({
          id: uniqueName('t'),
          triggerType: TriggerType.Pre,
          triggerOperation: 'Read' as TriggerOperation,
          body: 'function () {}',
        }),
      ),
    ).toBe(400);
  });

  it('pre-triggers change the request body before the write; post-triggers may change the response', async () => {
    const { resource } = await c.items.create(
      { id: 't1', orderId: 'tr' },
      { preTriggerInclude: ['stamp'], postTriggerInclude: ['annotate'] },
    );
    expect(resource).toMatchObject({ stamped: 'Create', seenByPost: true });
    const { resource: stored } = await c.item('t1', 'tr').read();
    expect(stored).toMatchObject({ stamped: 'Create' });
    expect(stored).not.toHaveProperty('seenByPost');
    const { resource: replaced } = await c
      .item('t1', 'tr')
      .replace({ id: 't1', orderId: 'tr' }, { preTriggerInclude: 'stamp' });
    expect(replaced).toMatchObject({ stamped: 'Replace' });
  });

  it('write other documents in the same transaction, undone with the write when a post-trigger throws', async () => {
    await c.items.create(
      { id: 'kept', orderId: 'tr-atomic' },
      { preTriggerInclude: 'audit', postTriggerInclude: 'veto' },
    );
    expect((await c.item('audit-kept', 'tr-atomic').read()).statusCode).toBe(200);
    expect(
      await status(
        c.items.create(
          { id: 'vetoed', orderId: 'tr-atomic', veto: true },
          { preTriggerInclude: 'audit', postTriggerInclude: 'veto' },
        ),
      ),
    ).toBe(400);
    expect((await c.item('vetoed', 'tr-atomic').read()).statusCode).toBe(404);
    expect((await c.item('audit-vetoed', 'tr-atomic').read()).statusCode).toBe(404);
  });

  it('are refused for an operation they are not for (400), as the wrong type (400), or unknown (404)', async () => {
    expect(await status(c.items.create({ id: 'x1', orderId: 'tr-bad' }, { postTriggerInclude: 'onDelete' }))).toBe(400);
    expect(await status(c.items.create({ id: 'x2', orderId: 'tr-bad' }, { preTriggerInclude: 'veto' }))).toBe(400);
    expect(await status(c.items.create({ id: 'x3', orderId: 'tr-bad' }, { preTriggerInclude: 'nobody' }))).toBe(404);
    expect((await c.item('x1', 'tr-bad').read()).statusCode).toBe(404);
    await c.items.create({ id: 'gone', orderId: 'tr-bad' });
    expect((await c.item('gone', 'tr-bad').delete({ postTriggerInclude: 'onDelete' })).statusCode).toBe(204);
  });
});

describe('user-defined functions', () => {
  it('are created, read, replaced, listed and deleted', async () => {
    await c.scripts.userDefinedFunctions.create({ id: 'crudUdf', body: 'function (x) { return x; }' });
    const { resource } = await c.scripts
      .userDefinedFunction('crudUdf')
      .replace({ id: 'crudUdf', body: 'function (x) { return x + 1; }' });
    expect(resource?.body).toContain('x + 1');
    const { resources } = await c.scripts.userDefinedFunctions.readAll().fetchAll();
    expect(resources.map((u) => u.id)).toContain('crudUdf');
    await c.scripts.userDefinedFunction('crudUdf').delete();
    expect(await status(c.scripts.userDefinedFunction('crudUdf').read())).toBe(404);
  });

  it('are called from queries as udf.<id>, in one partition and across partitions', async () => {
    await c.scripts.userDefinedFunctions.create({
      id: 'tax',
      body: 'function (amount) { return Math.round(amount * 0.2 * 100) / 100; }',
    });
    for (const [id, orderId, amount] of [
      ['u1', 'udf-a', 10],
      ['u2', 'udf-b', 25],
    ] as const)
      await c.items.create({ id, orderId, amount });
    const { resources: one } = await c.items
      .query('SELECT VALUE udf.tax(c.amount) FROM c WHERE c.id = "u1"', { partitionKey: 'udf-a' })
      .fetchAll();
    expect(one).toEqual([2]);
    const { resources: all } = await c.items
      .query('SELECT c.id, udf.tax(c.amount) AS tax FROM c WHERE udf.tax(c.amount) > 1')
      .fetchAll();
    expect(all.sort((a, b) => String(a.id).localeCompare(String(b.id)))).toEqual([
      { id: 'u1', tax: 2 },
      { id: 'u2', tax: 5 },
    ]);
  });

  it('fail the query with 400 naming the function when they throw', async () => {
    await c.scripts.userDefinedFunctions.create({ id: 'boom', body: 'function () { throw new Error("udf failed"); }' });
    await c.items.create({ id: 'b1', orderId: 'udf-boom' });
    const error = await c.items
      .query('SELECT VALUE udf.boom() FROM c', { partitionKey: 'udf-boom' })
      .fetchAll()
      .then(
        () => undefined,
        (e: { code?: number; message?: string }) => e,
      );
    expect(error?.code).toBe(400);
    expect(error?.message).toContain('udf failed');
  });

  it('time out with 408 when one does not return', async () => {
    const short = await startHarness({ scripts: { timeoutMs: 200 } });
    try {
      const container = await short.container();
      await container.scripts.userDefinedFunctions.create({ id: 'spin', body: 'function () { for (;;) {} }' });
      await container.items.create({ id: 's1', orderId: 'udf-spin' });
      expect(
        await status(container.items.query('SELECT VALUE udf.spin() FROM c', { partitionKey: 'udf-spin' }).fetchAll()),
      ).toBe(408);
    } finally {
      await short.close();
    }
  });

  it('are callable from queries a stored procedure runs', async () => {
    await c.scripts.userDefinedFunctions.create({ id: 'double', body: 'function (x) { return 2 * x; }' });
    await c.items.create({ id: 'd1', orderId: 'udf-sp', amount: 21 });
    await c.scripts.storedProcedures.create({
      id: 'withUdf',
      body: 'function () { __.queryDocuments(__.getSelfLink(), "SELECT VALUE udf.double(c.amount) FROM c", function (err, r) { if (err) throw err; __.response.setBody(r[0]); }); }',
    });
    expect((await c.scripts.storedProcedure('withUdf').execute('udf-sp')).resource).toBe(42);
  });
});
