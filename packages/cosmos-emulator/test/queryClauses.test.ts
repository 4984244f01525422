import type { Container, SqlQuerySpec } from '@azure/cosmos';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, startHarness } from './harness.js';
import type { Harness } from './harness.js';

/*
 * DISTINCT, OFFSET LIMIT, GROUP BY, the aggregates MAKELIST/MAKESET/COUNTIF and LIKE, driven by the SDK over three
 * partition key ranges (its query plan and cross-partition pipeline) and inside one partition key.
 */

let h: Harness;
let items: Container;

const CATEGORIES = ['books', 'toys', 'food', 'home'];

beforeAll(async () => {
  h = await startHarness({ partitionKeyRanges: 3 });
  items = await h.container({ partitionKey: ['/pk'] });
  // 60 documents over 12 partition keys: amount i, category by i % 4, a tag list, a name.
  await items.items.executeBulkOperations(
    Array.from({ length: 60 }, (_, i) => ({
      operationType: 'Create' as const,
      partitionKey: `p${i % 12}`,
      resourceBody: {
        id: `d${i}`,
        pk: `p${i % 12}`,
        amount: i,
        category: CATEGORIES[i % 4] ?? '',
        name: `${CATEGORIES[i % 4] ?? ''} item ${i}`,
        even: i % 2 === 0,
        tags: i % 3 === 0 ? ['a', 'b'] : ['b'],
      },
    })),
  );
});
afterAll(async () => {
  await h.close();
});

const all = async (query: string | SqlQuerySpec, pk?: string): Promise<unknown[]> =>
  (await items.items.query(query, pk === undefined ? {} : { partitionKey: pk }).fetchAll()).resources;
const sorted = (rows: unknown[]): string[] => rows.map((r) => JSON.stringify(r)).sort();

describe('DISTINCT', () => {
  it('removes repeated results across ranges, for objects and VALUE', async () => {
    expect(sorted(await all('SELECT DISTINCT c.category FROM c'))).toEqual(
      sorted(CATEGORIES.map((category) => ({ category }))),
    );
    expect(sorted(await all('SELECT DISTINCT VALUE c.tags FROM c'))).toEqual(sorted([['a', 'b'], ['b']]));
  });

  it('keeps ORDER BY order and combines with TOP', async () => {
    expect(await all('SELECT DISTINCT VALUE c.category FROM c ORDER BY c.category DESC')).toEqual(
      [...CATEGORIES].sort().reverse(),
    );
    expect(await all('SELECT DISTINCT TOP 2 c.category FROM c ORDER BY c.category')).toEqual([
      { category: 'books' },
      { category: 'food' },
    ]);
  });

  it('works inside one partition key', async () => {
    expect(sorted(await all('SELECT DISTINCT VALUE c.category FROM c', 'p1'))).toEqual(sorted(['toys']));
  });
});

describe('OFFSET LIMIT', () => {
  it('skips OFFSET results and returns LIMIT of them, in ORDER BY order across ranges', async () => {
    const rows = (await all('SELECT VALUE c.amount FROM c ORDER BY c.amount DESC OFFSET 5 LIMIT 4')) as number[];
    expect(rows).toEqual([54, 53, 52, 51]);
  });

  it('takes its counts from parameters, and pages', async () => {
    const spec = {
      query: 'SELECT c.id, c.amount FROM c ORDER BY c.amount OFFSET @skip LIMIT @take',
      parameters: [
        { name: '@skip', value: 10 },
        { name: '@take', value: 25 },
      ],
    };
    const seen: number[] = [];
    for await (const page of items.items.query<{ amount: number }>(spec, { maxItemCount: 7 }).getAsyncIterator())
      seen.push(...page.resources.map((r) => r.amount));
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => i + 10));
  });

  it('answers an empty page past the end, and inside one partition key', async () => {
    expect(await all('SELECT * FROM c ORDER BY c.amount OFFSET 100 LIMIT 5')).toEqual([]);
    expect(await all('SELECT VALUE c.amount FROM c ORDER BY c.amount OFFSET 1 LIMIT 2', 'p3')).toEqual([15, 27]);
  });
});

describe('GROUP BY', () => {
  it('aggregates each group across ranges', async () => {
    const rows = await all(
      'SELECT c.category, COUNT(1) AS n, SUM(c.amount) AS total, AVG(c.amount) AS mean, MIN(c.amount) AS low, MAX(c.amount) AS high FROM c GROUP BY c.category',
    );
    const expected = CATEGORIES.map((category, k) => {
      const amounts = Array.from({ length: 15 }, (_, j) => k + 4 * j);
      const total = amounts.reduce((a, b) => a + b, 0);
      return { category, n: 15, total, mean: total / 15, low: k, high: k + 56 };
    });
    expect(sorted(rows)).toEqual(sorted(expected));
  });

  it('groups by an expression and by several, with SELECT VALUE', async () => {
    expect(sorted(await all('SELECT VALUE COUNT(1) FROM c GROUP BY c.even'))).toEqual(sorted([30, 30]));
    expect(
      sorted(
        await all('SELECT UPPER(c.category) AS cat, c.even, COUNT(1) AS n FROM c GROUP BY UPPER(c.category), c.even'),
      ),
    ).toEqual(sorted(CATEGORIES.map((category, k) => ({ cat: category.toUpperCase(), even: k % 2 === 0, n: 15 }))));
    expect(sorted(await all('SELECT VALUE c.category FROM c GROUP BY c.category'))).toEqual(sorted(CATEGORIES));
  });

  it('works inside one partition key', async () => {
    expect(await all('SELECT c.category, COUNT(1) AS n FROM c GROUP BY c.category', 'p2')).toEqual([
      { category: 'food', n: 5 },
    ]);
  });

  it('ends with query control and small pages, also when the groups of a range fill its last page exactly', async () => {
    for (const maxItemCount of [2, 3, 4]) {
      const iterator = items.items.query('SELECT c.category, COUNT(1) AS n FROM c GROUP BY c.category', {
        maxItemCount,
        enableQueryControl: true,
      });
      const rows: unknown[] = [];
      // A hang guard only: the SDK asks once per page and range.
      for (let fetches = 0; iterator.hasMoreResults() && fetches < 100; fetches++)
        rows.push(...(await iterator.fetchNext()).resources);
      expect(iterator.hasMoreResults()).toBe(false);
      expect(sorted(rows)).toEqual(sorted(CATEGORIES.map((category) => ({ category, n: 15 }))));
    }
  });

  it('merges aggregates outside SELECT VALUE across ranges', async () => {
    expect(await all('SELECT COUNT(1) AS n, MAX(c.amount) AS high FROM c WHERE c.even')).toEqual([{ n: 30, high: 58 }]);
  });
});

describe('aggregates the library lacks', () => {
  it('MAKELIST and MAKESET collect values across ranges', async () => {
    const [list] = (await all('SELECT VALUE MAKELIST(c.amount) FROM c WHERE c.amount < 6')) as number[][];
    expect([...(list ?? [])].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5]);
    const [set] = (await all('SELECT VALUE MAKESET(c.category) FROM c')) as string[][];
    expect([...(set ?? [])].sort()).toEqual([...CATEGORIES].sort());
    const grouped = (await all('SELECT c.category, MAKESET(c.even) AS parity FROM c GROUP BY c.category')) as {
      category: string;
      parity: boolean[];
    }[];
    expect(grouped.find((g) => g.category === 'toys')?.parity).toEqual([false]);
  });

  it('COUNTIF counts the rows where its argument is true', async () => {
    expect(await all('SELECT VALUE COUNTIF(c.amount >= 50) FROM c')).toEqual([10]);
  });
});

describe('LIKE', () => {
  it('matches % and _ patterns, NOT LIKE and ESCAPE', async () => {
    expect(sorted(await all("SELECT VALUE c.id FROM c WHERE c.name LIKE 'books item 1_'"))).toEqual(
      sorted(['d12', 'd16']),
    );
    expect(await all("SELECT VALUE COUNT(1) FROM c WHERE c.name NOT LIKE '%item%'")).toEqual([0]);
    expect(await all("SELECT VALUE COUNT(1) FROM c WHERE c.category LIKE 't%s'")).toEqual([15]);
    expect(await all("SELECT VALUE COUNT(1) FROM c WHERE CONCAT(c.category, '%') LIKE 'toys!%' ESCAPE '!'")).toEqual([
      15,
    ]);
  });
});

describe('continuation across ranges', () => {
  it('resumes ORDER BY with many equal values from tokens, every document once and in order, ascending and descending', async () => {
    for (const direction of ['ASC', 'DESC']) {
      const query = `SELECT c.id, c.category FROM c ORDER BY c.category ${direction}`;
      const seen: { id: string; category: string }[] = [];
      let iterator = items.items.query<{ id: string; category: string }>(query, {
        maxItemCount: 7,
        enableQueryControl: true,
      });
      while (iterator.hasMoreResults()) {
        const page = await iterator.fetchNext();
        seen.push(...page.resources);
        if (page.continuationToken !== undefined)
          iterator = items.items.query(query, {
            maxItemCount: 7,
            enableQueryControl: true,
            continuationToken: page.continuationToken,
          });
      }
      expect(new Set(seen.map((r) => r.id)).size).toBe(60);
      expect(seen).toHaveLength(60);
      const categories = seen.map((r) => r.category);
      expect(categories).toEqual(
        [...categories].sort((a, b) => (direction === 'ASC' ? a.localeCompare(b) : b.localeCompare(a))),
      );
    }
  });

  it('gives a full last page a continuation to an empty page, as the service does', async () => {
    const pages: number[] = [];
    for await (const page of items.items.readAll({ partitionKey: 'p0', maxItemCount: 5 }).getAsyncIterator())
      pages.push(page.resources.length);
    expect(pages).toEqual([5, 0]);
  });

  it('answers 400 "Invalid Continuation Token" for a token it did not give', async () => {
    const path = `/${items.url.replace(/^\//, '')}/docs`;
    for (const token of ['junk', '{"pipeline":{"skip":-1}}', '{"token":5}']) {
      const res = await rawRequest(h.emulator, 'POST', path, {
        body: JSON.stringify({
          query: token.includes('pipeline') ? 'SELECT DISTINCT c.pk FROM c' : 'SELECT * FROM c',
          parameters: [],
        }),
        headers: {
          'x-ms-documentdb-isquery': 'True',
          'content-type': 'application/query+json',
          'x-ms-documentdb-partitionkey': '["p0"]',
          'x-ms-continuation': token,
        },
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain('Invalid Continuation Token');
    }
  });
});
