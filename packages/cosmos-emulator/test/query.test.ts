import type { Container } from '@azure/cosmos';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness } from './harness.js';
import type { Harness } from './harness.js';

let h: Harness;
let orders: Container;

beforeAll(async () => {
  h = await startHarness();
  orders = await h.container({ defaultTtl: -1 });
  for (let i = 0; i < 30; i += 1) {
    await orders.items.create({
      id: `doc-${i}`,
      orderId: `q-${i % 3}`,
      n: i,
      type: i % 5 === 0 ? 'outbox' : 'state',
      status: i % 2 === 0 ? 'pending' : 'done',
    });
  }
});
afterAll(async () => {
  await h.close();
});

describe('queries', () => {
  it('binds parameters', async () => {
    const { resources } = await orders.items
      .query({ query: 'SELECT VALUE c.id FROM c WHERE c.n = @n', parameters: [{ name: '@n', value: 7 }] })
      .fetchAll();
    expect(resources).toEqual(['doc-7']);
  });

  it('sees only the given partition when a partition key is passed', async () => {
    const { resources } = await orders.items.query('SELECT * FROM c', { partitionKey: 'q-1' }).fetchAll();
    expect(resources).toHaveLength(10);
    expect(resources.every((d) => d.orderId === 'q-1')).toBe(true);
  });

  it('runs the outbox sweep across partitions', async () => {
    const { resources } = await orders.items
      .query("SELECT * FROM c WHERE c.type = 'outbox' AND c.status = 'pending'")
      .fetchAll();
    expect(resources.map((d) => d.id).sort()).toEqual(['doc-0', 'doc-10', 'doc-20']);
  });

  it('answers cross-partition ORDER BY, TOP and aggregates through the query plan', async () => {
    h.emulator.resetCounters();
    const ordered = await orders.items
      .query('SELECT c.id, c.n FROM c ORDER BY c.n DESC', { maxItemCount: 7 })
      .fetchAll();
    expect(ordered.resources.map((d) => d.n)).toEqual(Array.from({ length: 30 }, (_, i) => 29 - i));
    expect(h.emulator.counters().queryPlan).toBeGreaterThanOrEqual(1);
    const top = await orders.items.query('SELECT TOP 3 VALUE c.n FROM c ORDER BY c.n').fetchAll();
    expect(top.resources).toEqual([0, 1, 2]);
    const count = await orders.items.query("SELECT VALUE COUNT(1) FROM c WHERE c.status = 'pending'").fetchAll();
    expect(count.resources).toEqual([15]);
    const sum = await orders.items.query('SELECT VALUE SUM(c.n) FROM c').fetchAll();
    expect(sum.resources).toEqual([435]);
    const max = await orders.items.query('SELECT VALUE MAX(c.n) FROM c').fetchAll();
    expect(max.resources).toEqual([29]);
    const min = await orders.items.query('SELECT VALUE MIN(c.n) FROM c WHERE c.n > 3').fetchAll();
    expect(min.resources).toEqual([4]);
    const avg = await orders.items.query('SELECT VALUE AVG(c.n) FROM c').fetchAll();
    expect(avg.resources).toEqual([14.5]);
  });

  it('runs ORDER BY and aggregates inside one partition too', async () => {
    const ordered = await orders.items
      .query('SELECT VALUE c.n FROM c ORDER BY c.n DESC', { partitionKey: 'q-2' })
      .fetchAll();
    expect(ordered.resources).toEqual([29, 26, 23, 20, 17, 14, 11, 8, 5, 2]);
    const count = await orders.items.query('SELECT VALUE COUNT(1) FROM c', { partitionKey: 'q-2' }).fetchAll();
    expect(count.resources).toEqual([10]);
  });

  it('pages with continuation tokens and returns every document exactly once', async () => {
    for (const options of [{ maxItemCount: 4 }, { maxItemCount: 4, partitionKey: 'q-0' }]) {
      const iterator = orders.items.query('SELECT * FROM c', options);
      const seen: string[] = [];
      let pages = 0;
      while (iterator.hasMoreResults()) {
        const page = await iterator.fetchNext();
        expect(page.resources.length).toBeLessThanOrEqual(4);
        seen.push(...page.resources.map((d) => d.id as string));
        pages += 1;
      }
      const expected = options.partitionKey === undefined ? 30 : 10;
      expect(new Set(seen).size).toBe(expected);
      expect(seen).toHaveLength(expected);
      expect(pages).toBeGreaterThanOrEqual(Math.ceil(expected / 4));
    }
  });

  it('resumes from a continuation token handed to a new iterator', async () => {
    const first = await orders.items.query('SELECT * FROM c', { maxItemCount: 4, partitionKey: 'q-1' }).fetchNext();
    expect(first.continuationToken).toBeTruthy();
    const rest = await orders.items
      .query('SELECT * FROM c', { maxItemCount: 100, partitionKey: 'q-1', continuationToken: first.continuationToken })
      .fetchNext();
    const all = [...first.resources, ...rest.resources].map((d) => d.id);
    expect(new Set(all).size).toBe(10);
  });

  it('reads all items with readAll', async () => {
    const { resources } = await orders.items.readAll().fetchAll();
    expect(resources).toHaveLength(30);
  });

  it('answers 400 for a syntax error', async () => {
    const error = await orders.items
      .query('SELEC * FROM c', { partitionKey: 'q-0' })
      .fetchAll()
      .then(
        () => undefined,
        (e: { code: number }) => e,
      );
    expect(error?.code).toBe(400);
  });
});
