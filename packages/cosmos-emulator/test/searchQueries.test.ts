import type { Container } from '@azure/cosmos';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness } from './harness.js';
import type { Harness } from './harness.js';

/*
 * Vector search (VectorDistance, ORDER BY on it) and full-text search (FullTextContains/All/Any, FullTextScore,
 * ORDER BY RANK with RRF), by brute force over the documents, following the container's vector embedding and
 * full-text policies; driven by the SDK over three partition key ranges.
 */

let h: Harness;
let docs: Container;

const TEXTS = [
  'I like to swim',
  'I like to run',
  'Swimming and running every day',
  'We swam in the lake',
  'Nothing to see here',
  'run run run',
];

beforeAll(async () => {
  h = await startHarness({ partitionKeyRanges: 3 });
  const database = await h.database();
  ({ container: docs } = await database.containers.create({
    id: 'search',
    partitionKey: { paths: ['/pk'] },
    vectorEmbeddingPolicy: {
      vectorEmbeddings: [
        { path: '/near', dataType: 'float32', dimensions: 2, distanceFunction: 'euclidean' },
        { path: '/alike', dataType: 'float32', dimensions: 2, distanceFunction: 'cosine' },
      ],
    },
    fullTextPolicy: { defaultLanguage: 'en-US', fullTextPaths: [{ path: '/text', language: 'en-US' }] },
    indexingPolicy: { fullTextIndexes: [{ path: '/text' }], vectorIndexes: [{ path: '/near', type: 'flat' }] },
  } as Parameters<typeof database.containers.create>[0]));
  for (let i = 0; i < TEXTS.length; i++) {
    await docs.items.create({ id: `t${i}`, pk: `p${i}`, text: TEXTS[i], near: [i, 0], alike: [1, i] });
  }
});
afterAll(async () => {
  await h.close();
});

const all = async (query: string): Promise<unknown[]> => (await docs.items.query(query).fetchAll()).resources;

describe('VectorDistance', () => {
  it('computes cosine, dot product and euclidean distance, defaulting to the policy of the path', async () => {
    const [row] = (await all(
      "SELECT VectorDistance(c.near, [3, 4], false, {distanceFunction: 'euclidean'}) AS e, VectorDistance(c.near, [3, 4], false, {distanceFunction: 'dotproduct'}) AS d, VectorDistance(c.alike, [1, 0], false, {distanceFunction: 'cosine'}) AS k, VectorDistance(c.near, [3, 4]) AS byPolicy FROM c WHERE c.id = 't0'",
    )) as { e: number; d: number; k: number; byPolicy: number }[];
    expect(row).toEqual({ e: Math.hypot(3, 4), d: 0, k: 1, byPolicy: Math.hypot(3, 4) });
  });

  it('orders nearest first: ascending euclidean distance, descending cosine similarity, across ranges', async () => {
    expect(await all('SELECT TOP 3 VALUE c.id FROM c ORDER BY VectorDistance(c.near, [4.2, 0])')).toEqual([
      't4',
      't5',
      't3',
    ]);
    expect(await all('SELECT TOP 2 VALUE c.id FROM c ORDER BY VectorDistance(c.alike, [1, 0])')).toEqual(['t0', 't1']);
    expect(await all('SELECT VALUE c.id FROM c ORDER BY VectorDistance(c.near, [0, 0]) OFFSET 1 LIMIT 2')).toEqual([
      't1',
      't2',
    ]);
  });
});

describe('full-text search', () => {
  it('FullTextContains, ContainsAll and ContainsAny match words, stemmed as English', async () => {
    const ids = async (where: string): Promise<string[]> =>
      ((await all(`SELECT VALUE c.id FROM c WHERE ${where}`)) as string[]).sort();
    expect(await ids("FullTextContains(c.text, 'swim')")).toEqual(['t0', 't2']);
    expect(await ids("FullTextContainsAll(c.text, 'swimming', 'run')")).toEqual(['t2']);
    expect(await ids("FullTextContainsAny(c.text, 'swim', 'run')")).toEqual(['t0', 't1', 't2', 't5']);
    expect(await all("SELECT VALUE COUNTIF(FullTextContains(c.text, 'run')) FROM c")).toEqual([3]);
  });

  it('ORDER BY RANK FullTextScore ranks by BM25 over the whole container, best first', async () => {
    const ranked = (await all("SELECT TOP 10 c.id FROM c ORDER BY RANK FullTextScore(c.text, 'run')")) as {
      id: string;
    }[];
    // Three documents hold the term; the one that repeats it and says little else ranks first.
    expect(ranked.map((r) => r.id)).toHaveLength(3);
    expect(ranked[0]?.id).toBe('t5');
    expect(ranked.map((r) => r.id).sort()).toEqual(['t1', 't2', 't5']);
  });

  it('fuses components with RRF, and applies TOP', async () => {
    const fused = (await all(
      "SELECT TOP 2 c.id FROM c ORDER BY RANK RRF(FullTextScore(c.text, 'swim'), VectorDistance(c.near, [0, 0]))",
    )) as { id: string }[];
    // t0 is both a swim match and the nearest vector: first in both rankings.
    expect(fused).toHaveLength(2);
    expect(fused[0]?.id).toBe('t0');
  });
});

describe('vector policies', () => {
  const embedding = { path: '/v', dataType: 'float32', dimensions: 3, distanceFunction: 'cosine' };
  const create = async (definition: Record<string, unknown>): Promise<{ code?: number; message: string }> => {
    const database = await h.database();
    try {
      await database.containers.create({ partitionKey: { paths: ['/pk'] }, ...definition } as Parameters<
        typeof database.containers.create
      >[0]);
      return { message: 'created' };
    } catch (error) {
      return { code: (error as { code?: number }).code, message: (error as Error).message };
    }
  };

  it('refuses vector indexes without a matching embedding, and embeddings with bad dimensions', async () => {
    expect(
      await create({ id: 'no-embeddings', indexingPolicy: { vectorIndexes: [{ path: '/v', type: 'flat' }] } }),
    ).toMatchObject({ code: 400 });
    expect(
      await create({
        id: 'other-path',
        vectorEmbeddingPolicy: { vectorEmbeddings: [embedding] },
        indexingPolicy: { vectorIndexes: [{ path: '/w', type: 'flat' }] },
      }),
    ).toMatchObject({
      code: 400,
      message: expect.stringContaining("/w not matching in Embedding's path"),
    });
    expect(
      await create({
        id: 'too-wide',
        vectorEmbeddingPolicy: { vectorEmbeddings: [{ ...embedding, dimensions: 2000 }] },
      }),
    ).toMatchObject({
      message: expect.stringContaining('Dimensions:2000 which is more than max:1536'),
    });
    expect(
      await create({ id: 'negative', vectorEmbeddingPolicy: { vectorEmbeddings: [{ ...embedding, dimensions: -1 }] } }),
    ).toMatchObject({
      message: expect.stringContaining('invalid Dimensions:-1'),
    });
    expect(
      await create({
        id: 'fine',
        vectorEmbeddingPolicy: { vectorEmbeddings: [embedding] },
        indexingPolicy: { vectorIndexes: [{ path: '/v', type: 'quantizedFlat' }] },
      }),
    ).toEqual({ message: 'created' });
  });

  it('keeps vector indexes as created: a replace that changes them answers 400', async () => {
    const database = await h.database();
    const { container } = await database.containers.create({
      id: 'fixed-vectors',
      partitionKey: { paths: ['/pk'] },
      vectorEmbeddingPolicy: { vectorEmbeddings: [embedding] },
      indexingPolicy: { vectorIndexes: [{ path: '/v', type: 'flat' }] },
    } as Parameters<typeof database.containers.create>[0]);
    const { resource } = await container.read();
    await expect(
      container.replace({
        ...resource!,
        indexingPolicy: { ...resource!.indexingPolicy, vectorIndexes: [{ path: '/v', type: 'diskANN' }] },
      } as never),
    ).rejects.toMatchObject({ code: 400 });
    expect((await container.replace({ ...resource!, defaultTtl: 60 })).resource?.defaultTtl).toBe(60);
  });
});
