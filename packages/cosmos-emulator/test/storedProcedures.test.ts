import type { Container } from '@azure/cosmos';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, uniqueName } from './harness.js';
import type { Harness } from './harness.js';

/*
 * Stored procedures through the unmodified SDK: CRUD, execution in a partition with the server-side API
 * (context, collection CRUD and queries with callbacks, request/response), atomicity (a procedure that
 * throws leaves nothing written), bounded execution and the time budget.
 */

let h: Harness;
let c: Container;
beforeAll(async () => {
  // A small operation budget makes "not accepted" reachable in a test.
  h = await startHarness({ scripts: { operationBudget: 5 } });
  c = await h.container();
});
afterAll(async () => {
  await h.close();
});

async function sproc(body: string): Promise<string> {
  const id = uniqueName('sp');
  await c.scripts.storedProcedures.create({ id, body });
  return id;
}

async function ids(orderId: string): Promise<string[]> {
  const { resources } = await c.items
    .query<{ id: string }>({
      query: 'SELECT c.id FROM c WHERE c.orderId = @o',
      parameters: [{ name: '@o', value: orderId }],
    })
    .fetchAll();
  return resources.map((r) => r.id).sort();
}

const failure = (promise: Promise<unknown>): Promise<{ code?: number; message?: string }> =>
  promise.then(
    () => ({}),
    (e: { code?: number; message?: string }) => e,
  );

describe('stored procedures', () => {
  it('are created, listed, queried, read, replaced and deleted; 409 for a duplicate, 404 once gone', async () => {
    const { resource } = await c.scripts.storedProcedures.create({ id: 'crud', body: 'function () {}' });
    expect(resource?._self).toMatch(/\/sprocs\/.+\/$/);
    expect((await failure(c.scripts.storedProcedures.create({ id: 'crud', body: 'function () {}' }))).code).toBe(409);
    const { resources: listed } = await c.scripts.storedProcedures.readAll().fetchAll();
    expect(listed.map((s) => s.id)).toContain('crud');
    const { resources: queried } = await c.scripts.storedProcedures
      .query({ query: 'SELECT * FROM r WHERE r.id = @id', parameters: [{ name: '@id', value: 'crud' }] })
      .fetchAll();
    expect(queried).toHaveLength(1);
    const { resource: replaced } = await c.scripts
      .storedProcedure('crud')
      .replace({ id: 'crud', body: 'function () { getContext().getResponse().setBody(2); }' });
    expect(replaced?.body).toContain('setBody(2)');
    expect((await c.scripts.storedProcedure('crud').execute('p')).resource).toBe(2);
    await c.scripts.storedProcedure('crud').delete();
    expect((await failure(c.scripts.storedProcedure('crud').read())).code).toBe(404);
  });

  it('run with their arguments and answer the response body they set', async () => {
    const id = await sproc(
      'function (a, b) { getContext().getResponse().setBody({ sum: a.n + b, request: getContext().getRequest().getBody() }); }',
    );
    const { resource } = await c.scripts.storedProcedure(id).execute('p', [{ n: 2 }, 3]);
    expect(resource).toEqual({ sum: 5, request: [{ n: 2 }, 3] });
  });

  it('append to a response body that starts empty, as text', async () => {
    const id = await sproc(
      'function () { for (var i = 0; i < 4; i++) getContext().getResponse().appendValue("Body", i); }',
    );
    expect((await c.scripts.storedProcedure(id).execute('p')).resource).toBe('0123');
  });

  it('write, read and query documents of their partition only, through callbacks', async () => {
    await c.items.create({ id: 'other', orderId: 'sp-elsewhere' });
    const id = await sproc(`function (prefix) {
      var coll = getContext().getCollection();
      var response = getContext().getResponse();
      var accepted = coll.createDocument(coll.getSelfLink(), { id: prefix + '-1', orderId: 'sp-own', n: 1 }, function (err, doc) {
        if (err) throw err;
        coll.readDocument(doc._self, function (err2, read) {
          if (err2) throw err2;
          coll.queryDocuments(coll.getAltLink(), 'SELECT VALUE c.id FROM c', {}, function (err3, found) {
            if (err3) throw err3;
            response.setBody({ read: read.n, found: found });
          });
        });
      });
      if (!accepted) throw new Error('not accepted');
    }`);
    const { resource } = await c.scripts.storedProcedure(id).execute('sp-own', ['w']);
    expect(resource).toEqual({ read: 1, found: ['w-1'] });
    expect(await ids('sp-own')).toEqual(['w-1']);
  });

  it('leave nothing written when they throw, even after writes that succeeded', async () => {
    const id = await sproc(`function () {
      var coll = getContext().getCollection();
      coll.createDocument(coll.getSelfLink(), { id: 'a', orderId: 'sp-atomic' });
      coll.createDocument(coll.getSelfLink(), { id: 'b', orderId: 'sp-atomic' }, function () {
        throw new Error('changed my mind');
      });
    }`);
    const error = await failure(c.scripts.storedProcedure(id).execute('sp-atomic'));
    expect(error.code).toBe(400);
    expect(error.message).toContain('changed my mind');
    expect(await ids('sp-atomic')).toEqual([]);
  });

  it('fail with the operation status and roll back when a failed operation has no callback', async () => {
    await c.items.create({ id: 'taken', orderId: 'sp-unhandled' });
    const id = await sproc(`function () {
      var coll = getContext().getCollection();
      coll.createDocument(coll.getSelfLink(), { id: 'fresh', orderId: 'sp-unhandled' });
      coll.createDocument(coll.getSelfLink(), { id: 'taken', orderId: 'sp-unhandled' });
    }`);
    expect((await failure(c.scripts.storedProcedure(id).execute('sp-unhandled'))).code).toBe(409);
    expect(await ids('sp-unhandled')).toEqual(['taken']);
  });

  it('see a failed operation in its callback (err.number) and may carry on', async () => {
    await c.items.create({ id: 'dup', orderId: 'sp-handled' });
    const id = await sproc(`function () {
      var coll = getContext().getCollection();
      coll.createDocument(coll.getSelfLink(), { id: 'dup', orderId: 'sp-handled' }, function (err) {
        getContext().getResponse().setBody(err.number === ErrorCodes.Conflict ? 'conflict' : 'other');
        coll.upsertDocument(coll.getSelfLink(), { id: 'after', orderId: 'sp-handled' });
      });
    }`);
    expect((await c.scripts.storedProcedure(id).execute('sp-handled')).resource).toBe('conflict');
    expect(await ids('sp-handled')).toEqual(['after', 'dup']);
  });

  it('are refused a document of another partition (400) and a link outside their container', async () => {
    const wrongKey = await sproc(
      'function () { var c = getContext().getCollection(); c.createDocument(c.getSelfLink(), { id: "x", orderId: "elsewhere" }); }',
    );
    expect((await failure(c.scripts.storedProcedure(wrongKey).execute('sp-mine'))).code).toBe(400);
    const wrongLink = await sproc(
      'function () { getContext().getCollection().createDocument("dbs/other/colls/other", { id: "x" }); }',
    );
    const error = await failure(c.scripts.storedProcedure(wrongLink).execute('sp-mine'));
    expect(error.code).toBe(400);
    expect(error.message).toContain('outside current collection');
  });

  it('get false (not accepted) once the operation budget is spent, and continue in a next call', async () => {
    const id = await sproc(`function (from, to) {
      var coll = getContext().getCollection();
      var i = from;
      while (i < to && coll.createDocument(coll.getSelfLink(), { id: 'n' + i, orderId: 'sp-bulk' })) i++;
      getContext().getResponse().setBody(i);
    }`);
    const first = (await c.scripts.storedProcedure(id).execute('sp-bulk', [0, 8])).resource as number;
    expect(first).toBe(5);
    const second = (await c.scripts.storedProcedure(id).execute('sp-bulk', [first, 8])).resource as number;
    expect(second).toBe(8);
    expect(await ids('sp-bulk')).toHaveLength(8);
  });

  it('time out with 408 past the time budget, keeping nothing', async () => {
    const short = await startHarness({ scripts: { timeoutMs: 200 } });
    try {
      const container = await short.container();
      await container.scripts.storedProcedures.create({
        id: 'loop',
        body: 'function () { var c = getContext().getCollection(); c.createDocument(c.getSelfLink(), { id: "before-loop", orderId: "sp-loop" }); for (;;) {} }',
      });
      expect((await failure(container.scripts.storedProcedure('loop').execute('sp-loop'))).code).toBe(408);
      expect((await container.item('before-loop', 'sp-loop').read()).statusCode).toBe(404);
    } finally {
      await short.close();
    }
  });

  it('return their console.log lines only when script logging is on', async () => {
    const id = await sproc(
      'function () { console.log("%s is %s", "x", 1); getContext().getResponse().setBody("ok"); }',
    );
    const plain = await c.scripts.storedProcedure(id).execute('p');
    expect(plain.headers['x-ms-documentdb-script-log-results']).toBeUndefined();
    const logged = await c.scripts.storedProcedure(id).execute('p', [], { enableScriptLogging: true });
    expect(logged.headers['x-ms-documentdb-script-log-results']).toBe(encodeURIComponent('x is 1'));
  });

  it('query with the JavaScript query API (filter, map, chain) and page with continuations', async () => {
    for (const n of [1, 2, 3]) await c.items.create({ id: `q${n}`, orderId: 'sp-query', n });
    const id = await sproc(`function () {
      var result = __.chain().filter(function (d) { return d.n > 1; }).map(function (d) { return d.n * 10; }).value();
      if (!result.isAccepted) throw new Error('not accepted');
      __.queryDocuments(__.getSelfLink(), 'SELECT VALUE c.n FROM c', { pageSize: 2 }, function (err, page, options) {
        if (err) throw err;
        __.queryDocuments(__.getSelfLink(), 'SELECT VALUE c.n FROM c', { pageSize: 2, continuation: options.continuation }, function (err2, rest) {
          if (err2) throw err2;
          __.response.setBody({ first: page.length, rest: rest.length, hasMore: options.continuation !== undefined });
        });
      });
    }`);
    expect((await c.scripts.storedProcedure(id).execute('sp-query')).resource).toEqual({
      first: 2,
      rest: 1,
      hasMore: true,
    });
    const fluent = await sproc('function () { __.filter(function (d) { return d.n === 2; }); }');
    expect((await c.scripts.storedProcedure(fluent).execute('sp-query')).resource).toMatchObject([{ id: 'q2' }]);
  });

  it('answer 400 naming the problem for a body that is not a function, 404 for an unknown procedure', async () => {
    const broken = await sproc('this is not javascript');
    const error = await failure(c.scripts.storedProcedure(broken).execute('p'));
    expect(error.code).toBe(400);
    expect(error.message).toContain('not valid JavaScript');
    expect((await failure(c.scripts.storedProcedure('missing').execute('p'))).code).toBe(404);
  });
});
