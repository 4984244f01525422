import type { Container } from '@azure/cosmos';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, startHarness } from './harness.js';
import type { Harness } from './harness.js';

/*
 * Queries the emulator cannot answer correctly are refused with a 400 that names what is missing, for the plan
 * request the .NET SDK sends first and for the per-range query it sends next.
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
    ['SELECT * FROM c ORDER BY c.id OFFSET 1 LIMIT 2', 'OFFSET LIMIT'],
    ['SELECT c.orderId, COUNT(1) AS n FROM c GROUP BY c.orderId', 'GROUP BY'],
    ['SELECT DISTINCT c.orderId FROM c', 'DISTINCT'],
  ])('a query plan request for %s answers 400 naming %s', async (text, feature) => {
    const res = await query(text, { 'x-ms-cosmos-is-query-plan-request': 'True' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain(`does not support ${feature}`);
  });

  it('keeps a string literal that merely contains such a word a plain query', async () => {
    const res = await query("SELECT * FROM c WHERE c.id = 'GROUP BY'", { 'x-ms-cosmos-is-query-plan-request': 'True' });
    expect(res.status).toBe(200);
  });

  it('refuses an aggregate without SELECT VALUE sent to one of several ranges, whose partial results nothing would merge', async () => {
    const res = await query('SELECT COUNT(1) AS n FROM c', { 'x-ms-documentdb-partitionkeyrangeid': '0', 'x-ms-documentdb-query-enablecrosspartition': 'True' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain('aggregates without SELECT VALUE');
  });

  it('still answers that aggregate within one partition key and across the whole container', async () => {
    const inPartition = await orders.items.query('SELECT COUNT(1) AS n FROM c', { partitionKey: 'o1' }).fetchAll();
    expect(inPartition.resources).toEqual([{ n: 1 }]);
    const whole = await query('SELECT COUNT(1) AS n FROM c', { 'x-ms-documentdb-query-enablecrosspartition': 'True' });
    expect(whole.status).toBe(200);
    expect(((await whole.json()) as { Documents: unknown[] }).Documents).toEqual([{ n: 10 }]);
  });
});
