import type { Container } from '@azure/cosmos';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, startHarness } from './harness.js';
import type { Harness } from './harness.js';

/*
 * Queries the emulator cannot answer correctly are refused with a 400 that names what is missing, for the plan
 * request the SDKs send first and for the per-range query they send next.
 */

let h: Harness;
let orders: Container;
let docsPath: string;

beforeAll(async () => {
  h = await startHarness({ partitionKeyRanges: 2 });
  orders = await h.container();
  docsPath = `/${orders.url.replace(/^\//, '')}/docs`;
  for (let i = 0; i < 10; i++) await orders.items.create({ id: `d${i}`, orderId: `o${i}` });
});
afterAll(async () => {
  await h.close();
});

const query = (text: string, headers: Record<string, string>): Promise<Response> =>
  rawRequest(h.emulator, 'POST', docsPath, {
    body: JSON.stringify({ query: text, parameters: [] }),
    headers: { 'x-ms-documentdb-isquery': 'True', 'content-type': 'application/query+json', ...headers },
  });

describe('query refusals', () => {
  it.each([
    ['SELECT c.orderId, COUNT(1) AS n FROM c GROUP BY c.orderId ORDER BY c.orderId', 'ORDER BY together with GROUP BY'],
    ['SELECT COUNT(1) + 1 AS n FROM c', 'aggregates inside expressions'],
    ['SELECT VALUE { n: COUNT(1) } FROM c', 'aggregates inside expressions'],
    ["SELECT * FROM c ORDER BY RANK FullTextScore(c.text, 'a')", 'ORDER BY RANK needs TOP'],
    ['SELECT TOP 5 * FROM c ORDER BY RANK c.id', 'ORDER BY RANK ranks by FullTextScore'],
  ])('a query plan request for %s answers 400 naming %s', async (text, feature) => {
    const res = await query(text, { 'x-ms-cosmos-is-query-plan-request': 'True' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain(feature);
  });

  it('refuses ORDER BY RANK that ranks non-objects, which the SDK cannot read back', async () => {
    const plan = (await (
      await query("SELECT TOP 5 VALUE c.id FROM c ORDER BY RANK FullTextScore(c.orderId, 'o1')", {
        'x-ms-cosmos-is-query-plan-request': 'True',
      })
    ).json()) as {
      hybridSearchQueryInfo: { componentQueryInfos: { rewrittenQuery: string }[] };
    };
    const component = plan.hybridSearchQueryInfo.componentQueryInfos[0]?.rewrittenQuery ?? '';
    const res = await query(
      component.replace(/\{documentdb-formattablehybridsearchquery-[^}]*\}/g, (p) =>
        p.includes('hitcounts') ? '[1]' : '1',
      ),
      { 'x-ms-documentdb-partitionkey': '["o1"]' },
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain(
      'SELECT VALUE of a scalar or array cannot be ranked',
    );
  });

  it('keeps a string literal that merely contains a clause word a plain query', async () => {
    const res = await query("SELECT * FROM c WHERE c.id = 'GROUP BY DISTINCT OFFSET 1 LIMIT 1'", {
      'x-ms-cosmos-is-query-plan-request': 'True',
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { queryInfo: { rewrittenQuery: string } }).queryInfo.rewrittenQuery).toBe('');
  });

  it('answers a cross-partition query that needs the plan with 400/1004 and the plan, for the SDK to follow', async () => {
    const res = await query('SELECT DISTINCT c.orderId FROM c', {
      'x-ms-documentdb-query-enablecrosspartition': 'True',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-ms-substatus')).toBe('1004');
    const info = JSON.parse(((await res.json()) as { additionalErrorInfo: string }).additionalErrorInfo) as {
      queryInfo: { distinctType: string };
    };
    expect(info.queryInfo.distinctType).toBe('Unordered');
    const inPartition = await orders.items.query('SELECT COUNT(1) AS n FROM c', { partitionKey: 'o1' }).fetchAll();
    expect(inPartition.resources).toEqual([{ n: 1 }]);
  });
});
