import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseSql } from '../src/query/cosmosdbQuery.js';
import { runQuery } from '../src/query/queryEngine.js';
import type { CandidateFilter, QueryPage, QuerySpec } from '../src/query/queryEngine.js';
import { REWRITE_MARKER } from '../src/query/rewrite.js';
import { AccountStore } from '../src/store/accountStore.js';
import type { DocumentOperation } from '../src/store/documentOps.js';

/*
 * Every query runs twice over the same store state: through the pre-filter (index candidates, skipped
 * `_rid`s) and over all documents with the pre-filter off; plain queries also run through the
 * unmodified library. All must agree exactly, page by page, before and after writes, deletes and TTL.
 */

const DB = 'db';
const COLL = 'orders';
const OPEN = "c.docType = 'outbox' AND c.status IN ('pending', 'in-progress', 'failed')";
const T0 = Date.parse('2030-01-01T00:00:00Z');

let store: AccountStore;
let filters: (CandidateFilter | undefined)[];

const pkOf = (orderId: string): string => JSON.stringify([orderId]);

async function apply(orderId: string, ops: DocumentOperation[]): Promise<void> {
  const results = await store.execute(DB, COLL, pkOf(orderId), ops);
  expect(results.every((r) => r.ok)).toBe(true);
}

function outbox(orderId: string, n: number, status: unknown, extra: Record<string, unknown> = {}): DocumentOperation {
  return { kind: 'upsert', body: { id: `outbox-${n}`, orderId, docType: 'outbox', sequence: n, status, ...extra } };
}

async function seed(): Promise<void> {
  await store.createDatabase({ id: DB });
  await store.createContainer(DB, { id: COLL, partitionKey: { paths: ['/orderId'] }, defaultTtl: -1 });
  const statuses: unknown[] = ['pending', 'done', 'in-progress', 'failed', 'done', null, 1, { s: 'pending' }];
  for (let o = 0; o < 6; o += 1) {
    const orderId = `order-${o}`;
    const ops: DocumentOperation[] = [
      {
        kind: 'create',
        body: {
          id: 'order',
          orderId,
          docType: 'order',
          parked: o % 2 === 0 ? [{ sequence: o }] : [],
          rejected: o === 3 ? [{ alerted: false }] : [],
        },
      },
    ];
    for (let n = 0; n < 8; n += 1)
      ops.push(outbox(orderId, n, statuses[(n + o) % statuses.length], n === 2 ? { flag: true, note: null } : {}));
    for (let n = 0; n < 10; n += 1)
      ops.push({
        kind: 'create',
        body: { id: `inbox-${n}`, orderId, docType: 'inbox', sequence: n, ...(n % 3 === 0 && { ttl: 5 }) },
      });
    ops.push({ kind: 'create', body: { id: 'odd', orderId, docType: o, meta: { kind: 'outbox' } } });
    ops.push({ kind: 'create', body: { id: 'bare', orderId } });
    await apply(orderId, ops);
  }
}

/** Runs one page both ways: with the pre-filter and over every document. */
function page(spec: QuerySpec, orderId: string | undefined, maxItemCount?: number, continuation?: string): QueryPage {
  const pk = orderId === undefined ? undefined : pkOf(orderId);
  const options = {
    ...(maxItemCount !== undefined && { maxItemCount }),
    ...(continuation !== undefined && { continuation }),
  };
  const filtered = runQuery(
    spec,
    (filter) => {
      filters.push(filter);
      return store.queryDocuments(DB, COLL, { pk }, filter).map((d) => d.body);
    },
    options,
  );
  const all = store.documents(DB, COLL, { pk }).map((d) => d.body);
  expect(filtered).toEqual(runQuery(spec, all, { ...options, prefilter: false }));
  return filtered;
}

/** Every result of a query as the raw library gives it, to compare pages against (order aside). */
function reference(spec: QuerySpec, orderId: string | undefined): string[] {
  const pk = orderId === undefined ? undefined : pkOf(orderId);
  const all = store.documents(DB, COLL, { pk }).map((d) => d.body);
  return parseSql(spec.query)
    .exec(all, { parameters: spec.parameters })
    .result.map((r) => JSON.stringify(r))
    .sort();
}

/**
 * Pages through a query (3 per page) and returns every item, checking each page both ways and, when the text
 * has no rewrite marker, that the pages together hold what the raw library answers.
 */
async function pages(spec: QuerySpec, orderId?: string, between?: () => Promise<void>): Promise<unknown[]> {
  const items: unknown[] = [];
  const next = async (continuation?: string): Promise<unknown[]> => {
    const result = page(spec, orderId, 3, continuation);
    items.push(...result.items);
    if (result.continuation === undefined) return items;
    await between?.();
    return next(result.continuation);
  };
  await next();
  if (between === undefined && !spec.query.startsWith('--'))
    expect(items.map((r) => JSON.stringify(r)).sort()).toEqual(reference(spec, orderId));
  return items;
}

const SHAPES: { name: string; spec: QuerySpec; orderId?: string }[] = [
  { name: 'open outbox of one order', spec: { query: `SELECT * FROM c WHERE ${OPEN}` }, orderId: 'order-1' },
  { name: 'open outbox, all orders', spec: { query: `SELECT * FROM c WHERE ${OPEN}` } },
  {
    name: 'sweep (ORDER BY rewrite)',
    spec: {
      query: `${REWRITE_MARKER.orderBy}\nSELECT TOP 7 c.id, c.orderId, c.status FROM c WHERE ${OPEN} ORDER BY c.orderId`,
    },
  },
  {
    name: 'sweep in one order',
    spec: { query: `SELECT TOP 7 c.id, c.status FROM c WHERE ${OPEN} ORDER BY c.sequence DESC` },
    orderId: 'order-2',
  },
  {
    name: 'count by @status (aggregate rewrite)',
    spec: {
      query: `${REWRITE_MARKER.aggregate}\nSELECT VALUE COUNT(1) FROM c WHERE c.docType = 'outbox' AND c.status = @status`,
      parameters: [{ name: '@status', value: 'pending' }],
    },
  },
  {
    name: 'count in one order',
    spec: {
      query: "SELECT VALUE COUNT(1) FROM c WHERE c.docType = 'outbox' AND c.status = @s",
      parameters: [{ name: '@s', value: 'done' }],
    },
    orderId: 'order-4',
  },
  {
    name: 'min/max/avg/sum (aggregate rewrite)',
    spec: { query: `${REWRITE_MARKER.aggregate}\nSELECT VALUE AVG(c.sequence) FROM c WHERE c.docType = 'inbox'` },
  },
  {
    name: 'max (aggregate rewrite)',
    spec: {
      query: `${REWRITE_MARKER.aggregate}\nSELECT VALUE MAX(c.sequence) FROM c WHERE c.docType IN ('inbox', 'outbox') AND c.flag = true`,
    },
  },
  {
    name: 'parked orders',
    spec: {
      query:
        "SELECT * FROM c WHERE c.docType = 'order' AND (ARRAY_LENGTH(c.parked) > 0 OR ARRAY_CONTAINS(c.rejected, { alerted: false }, true))",
    },
  },
  {
    name: 'listing by @status',
    spec: {
      query: "SELECT TOP 1000 * FROM c WHERE c.docType = 'outbox' AND c.status = @status ORDER BY c.orderId",
      parameters: [{ name: '@status', value: 'failed' }],
    },
  },
  {
    name: 'reversed, bracketed, number, boolean, null',
    spec: {
      query:
        'SELECT c.id FROM c WHERE \'outbox\' = c["docType"] AND c.sequence = 2 AND c.flag = true AND c.note = null',
    },
  },
  { name: 'number value, alias root r', spec: { query: 'SELECT VALUE r.orderId FROM root r WHERE r.docType = 3' } },
  { name: 'top-level OR', spec: { query: 'SELECT VALUE r.orderId FROM root r WHERE r.docType = 3 OR r.docType = 4' } },
  { name: 'JOIN', spec: { query: "SELECT VALUE t FROM root r JOIN t IN r.parked WHERE r.docType = 'order'" } },
  {
    name: 'missing and object parameters',
    spec: {
      query: 'SELECT * FROM c WHERE c.docType = @missing AND c.status = @object',
      parameters: [{ name: '@object', value: { s: 'pending' } }],
    },
  },
  { name: 'nested path only', spec: { query: "SELECT VALUE c.id FROM c WHERE c.meta.kind = 'outbox'" } },
  { name: 'inbox pages', spec: { query: "SELECT c.id, c.orderId FROM c WHERE c.docType = 'inbox'" } },
];

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(T0);
  store = await AccountStore.open();
  filters = [];
  await seed();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('query pre-filter', () => {
  it.each(SHAPES)('gives identical pages with and without it: $name', async ({ spec, orderId }) => {
    const all = await pages(spec, orderId);
    expect(all.length).toBeGreaterThanOrEqual(0);
  });

  it('narrows the app shapes, and leaves OR, nested paths and non-scalar parameters alone', () => {
    const filterOf = (spec: QuerySpec): CandidateFilter | undefined => {
      filters = [];
      page(spec, undefined);
      return filters[0];
    };
    expect(filterOf({ query: `SELECT * FROM c WHERE ${OPEN}` })?.equalities).toEqual([
      { property: 'docType', values: ['outbox'] },
      { property: 'status', values: ['pending', 'in-progress', 'failed'] },
    ]);
    expect(
      filterOf({
        query: "SELECT VALUE COUNT(1) FROM c WHERE c.docType = 'outbox' AND c.status = @s",
        parameters: [{ name: '@s', value: 'done' }],
      })?.equalities,
    ).toHaveLength(2);
    expect(filterOf({ query: "SELECT * FROM c WHERE c.docType = 'outbox' OR c.status = 'pending'" })).toBeUndefined();
    expect(filterOf({ query: "SELECT * FROM c WHERE NOT (c.docType = 'outbox')" })).toBeUndefined();
    expect(filterOf({ query: "SELECT * FROM c WHERE c.meta.kind = 'outbox'" })).toBeUndefined();
    expect(filterOf({ query: "SELECT * FROM c WHERE LOWER(c.docType) = 'outbox'" })).toBeUndefined();
    expect(
      filterOf({ query: 'SELECT * FROM c WHERE c.status = @o', parameters: [{ name: '@o', value: { s: 'pending' } }] }),
    ).toBeUndefined();
    expect(filterOf({ query: "SELECT VALUE t FROM c JOIN t IN c.parked WHERE c.docType = 'order'" })).toBeUndefined();
  });

  it('hands cross-partition queries only index candidates, and partition queries only their partition', () => {
    const filter: CandidateFilter = {
      equalities: [
        { property: 'docType', values: ['outbox'] },
        { property: 'status', values: ['pending', 'failed'] },
      ],
    };
    const cross = store.queryDocuments(DB, COLL, {}, filter);
    expect(cross.map((d) => d.body['status']).sort()).toEqual([
      ...Array<string>(6).fill('failed'),
      ...Array<string>(6).fill('pending'),
    ]);
    expect(store.container(DB, COLL).index.indexedProperties().sort()).toEqual(['docType', 'status']);
    const one = store.queryDocuments(DB, COLL, { pk: pkOf('order-5') }, { equalities: [] });
    expect(new Set(one.map((d) => d.body['orderId']))).toEqual(new Set(['order-5']));
    expect(one).toHaveLength(21);
  });

  it('stays identical after replaces, upserts that change the indexed value, deletes and TTL expiry', async () => {
    for (const { spec, orderId } of SHAPES) await pages(spec, orderId); // builds the indexes
    await apply('order-0', [
      outbox('order-0', 0, 'done'),
      outbox('order-0', 1, 'pending'),
      { kind: 'delete', id: 'outbox-3' },
    ]);
    await apply('order-1', [
      { kind: 'upsert', body: { id: 'outbox-2', orderId: 'order-1', docType: 'inbox', sequence: 99 } },
      { kind: 'delete', id: 'order' },
    ]);
    await apply('order-6', [
      outbox('order-6', 0, 'pending', { ttl: 2 }),
      { kind: 'create', body: { id: 'order', orderId: 'order-6', docType: 'order', parked: [1] } },
    ]);
    await apply('order-2', [
      { kind: 'patch', id: 'outbox-4', patch: { operations: [{ op: 'set', path: '/status', value: 'failed' }] } },
    ]);
    for (const { spec, orderId } of SHAPES) await pages(spec, orderId);
    vi.setSystemTime(T0 + 5_000); // every `ttl: 2` and `ttl: 5` document has now expired
    for (const { spec, orderId } of SHAPES) await pages(spec, orderId);
    expect(store.sweepExpired()).toBeGreaterThan(0);
    for (const { spec, orderId } of SHAPES) await pages(spec, orderId);
    // A re-created id after expiry is counted once.
    await apply('order-6', [outbox('order-6', 0, 'pending')]);
    const count = page(
      {
        query: `${REWRITE_MARKER.aggregate}\nSELECT VALUE COUNT(1) FROM c WHERE c.docType = 'outbox' AND c.status = 'pending' AND c.orderId = 'order-6'`,
      },
      undefined,
    );
    expect(count.items).toEqual([[{ item: 1 }]]);
  });

  it('pages exactly once while documents are inserted and updated between some pages', async () => {
    let round = 0;
    const writeSometimes = async (): Promise<void> => {
      round += 1;
      if (round % 2 === 0) return; // unchanged input: the next page comes from the remembered rows
      const orderId = `order-${round % 6}`;
      await apply(orderId, [
        { kind: 'upsert', body: { id: `late-${round}`, orderId, docType: 'inbox', sequence: 100 + round } },
        {
          kind: 'upsert',
          body: { id: `inbox-${round % 10}`, orderId, docType: 'inbox', sequence: round % 10, touched: round },
        },
      ]);
    };
    const items = (await pages({ query: "SELECT * FROM c WHERE c.docType = 'inbox'" }, undefined, writeSometimes)) as {
      id: string;
      orderId: string;
    }[];
    const seen = items.map((item) => `${item.orderId}/${item.id}`);
    expect(new Set(seen).size).toBe(seen.length);
    for (let o = 0; o < 6; o += 1) for (let n = 0; n < 10; n += 1) expect(seen).toContain(`order-${o}/inbox-${n}`);
    expect(round).toBeGreaterThan(10);
  });

  it('pages ORDER BY and TOP queries identically while documents change between pages', async () => {
    let round = 0;
    const touch = async (): Promise<void> => {
      round += 1;
      if (round % 3 !== 0) return;
      await apply('order-2', [
        {
          kind: 'upsert',
          body: { id: `inbox-${round % 10}`, orderId: 'order-2', docType: 'inbox', sequence: 50 - round },
        },
      ]);
    };
    await pages(
      { query: "SELECT c.id, c.orderId, c.sequence FROM c WHERE c.docType = 'inbox' ORDER BY c.sequence DESC" },
      undefined,
      touch,
    );
    await pages(
      { query: "SELECT TOP 20 c.id, c.sequence FROM c WHERE c.docType = 'inbox' ORDER BY c.orderId" },
      undefined,
      touch,
    );
    expect(round).toBeGreaterThan(10);
  });

  it('reports a query error the same way when the pre-filter leaves no candidates', () => {
    const spec = {
      query: "SELECT * FROM c WHERE c.docType = 'nothing-has-this' AND ARRAY_LENGTH(c.parked, c.rejected) > 0",
    };
    expect(() => page(spec, undefined)).toThrow(/ARRAY_LENGTH function requires 1 argument/);
  });
});
