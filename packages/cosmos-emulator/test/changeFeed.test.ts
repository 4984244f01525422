import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChangeFeedStartFrom, PartitionKeyKind, StatusCodes } from '@azure/cosmos';
import type {
  ChangeFeedIteratorOptions,
  ChangeFeedIteratorResponse,
  ChangeFeedPullModelIterator,
  Container,
} from '@azure/cosmos';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { rawRequest, startHarness } from './harness.js';
import type { Harness } from './harness.js';

interface Change {
  id: string;
  orderId: string;
  v: number;
  _lsn: number;
}

/** Hang guard: more pages than any test here needs by far; reading stops as soon as the feed answers 304. */
const MAX_PAGES = 1_000;

/** Reads pages until the feed answers 304 (nothing newer anywhere it reads), returning every change and page. */
async function drain(
  iterator: ChangeFeedPullModelIterator<Change>,
): Promise<{ changes: Change[]; pages: ChangeFeedIteratorResponse<Change[]>[] }> {
  const pages: ChangeFeedIteratorResponse<Change[]>[] = [];
  for (let i = 0; i < MAX_PAGES; i += 1) {
    const page = await iterator.readNext();
    pages.push(page);
    if (page.statusCode === StatusCodes.NotModified) return { changes: pages.flatMap((p) => p.result), pages };
    expect(page.statusCode).toBe(StatusCodes.Ok);
  }
  throw new Error(`the change feed did not answer 304 within ${MAX_PAGES} pages`);
}

function feed(container: Container, options: ChangeFeedIteratorOptions): ChangeFeedPullModelIterator<Change> {
  return container.items.getChangeFeedIterator<Change>(options);
}

const ids = (changes: Change[]): string[] => changes.map((c) => c.id);

describe('change feed (latest version)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('from the beginning: each changed document once, at its latest version, in modification order per partition key', async () => {
    const c = await h.container();
    await c.items.create({ id: 'a1', orderId: 'k1', v: 1 });
    await c.items.create({ id: 'b1', orderId: 'k2', v: 1 });
    await c.items.create({ id: 'a2', orderId: 'k1', v: 1 });
    await c.item('a1', 'k1').replace({ id: 'a1', orderId: 'k1', v: 2 });
    await c.items.create({ id: 'b2', orderId: 'k2', v: 1 });
    await c.items.upsert({ id: 'a2', orderId: 'k1', v: 3 });

    const { changes } = await drain(feed(c, { changeFeedStartFrom: ChangeFeedStartFrom.Beginning() }));
    expect(ids(changes).sort()).toEqual(['a1', 'a2', 'b1', 'b2']);
    expect(Object.fromEntries(changes.map((d) => [d.id, d.v]))).toEqual({ a1: 2, a2: 3, b1: 1, b2: 1 });
    // Per key, in the order of the last modification: a1 (replaced 4th) before a2 (upserted 6th).
    expect(ids(changes.filter((d) => d.orderId === 'k1'))).toEqual(['a1', 'a2']);
    expect(ids(changes.filter((d) => d.orderId === 'k2'))).toEqual(['b1', 'b2']);
    for (const key of ['k1', 'k2']) {
      const lsns = changes.filter((d) => d.orderId === key).map((d) => d._lsn);
      expect(lsns).toEqual([...lsns].sort((x, y) => x - y));
    }
  });

  it('does not report deletes or TTL expiry', async () => {
    const c = await h.container({ defaultTtl: -1 });
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-03-01T00:00:00Z'));
    await c.items.create({ id: 'kept', orderId: 'k', v: 1 });
    await c.items.create({ id: 'deleted', orderId: 'k', v: 1 });
    await c.items.create({ id: 'expiring', orderId: 'k', v: 1, ttl: 5 });
    await c.item('deleted', 'k').delete();
    vi.setSystemTime(new Date('2026-03-01T00:00:06Z'));
    const { changes } = await drain(feed(c, { changeFeedStartFrom: ChangeFeedStartFrom.Beginning() }));
    expect(ids(changes)).toEqual(['kept']);
  });

  it('from now: 304 at first, then only the changes made after it started', async () => {
    const c = await h.container();
    await c.items.create({ id: 'before', orderId: 'k', v: 1 });
    const iterator = feed(c, { changeFeedStartFrom: ChangeFeedStartFrom.Now() });
    const first = await iterator.readNext();
    expect(first.statusCode).toBe(StatusCodes.NotModified);
    expect(iterator.hasMoreResults).toBe(true);
    await c.items.create({ id: 'after', orderId: 'k', v: 1 });
    await c.items.upsert({ id: 'before', orderId: 'k', v: 2 });
    const { changes } = await drain(iterator);
    expect(changes.map((d) => [d.id, d.v])).toEqual([
      ['after', 1],
      ['before', 2],
    ]);
  });

  it('from a time: only documents last written at or after it', async () => {
    const c = await h.container();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-03-01T00:00:00Z'));
    await c.items.create({ id: 'old', orderId: 'k', v: 1 });
    await c.items.create({ id: 'touched', orderId: 'k', v: 1 });
    vi.setSystemTime(new Date('2026-03-01T00:00:10Z'));
    await c.items.create({ id: 'new', orderId: 'k', v: 1 });
    await c.items.upsert({ id: 'touched', orderId: 'k', v: 2 });
    const { changes } = await drain(
      feed(c, { changeFeedStartFrom: ChangeFeedStartFrom.Time(new Date('2026-03-01T00:00:05Z')) }),
    );
    expect(ids(changes)).toEqual(['new', 'touched']);
  });

  it('pages by maxItemCount and resumes from a continuation exactly after what was read', async () => {
    const c = await h.container();
    for (let i = 0; i < 7; i += 1) await c.items.create({ id: `d${i}`, orderId: `k${i % 2}`, v: 1 });
    const first = await feed(c, { changeFeedStartFrom: ChangeFeedStartFrom.Beginning(), maxItemCount: 3 }).readNext();
    expect(first.statusCode).toBe(StatusCodes.Ok);
    expect(first.count).toBe(3);

    const resumed = feed(c, {
      changeFeedStartFrom: ChangeFeedStartFrom.Continuation(first.continuationToken),
      maxItemCount: 3,
    });
    const rest = await drain(resumed);
    expect(rest.pages.every((p) => p.count <= 3)).toBe(true);
    expect([...ids(first.result), ...ids(rest.changes)].sort()).toEqual(['d0', 'd1', 'd2', 'd3', 'd4', 'd5', 'd6']);

    // The continuation of the 304 carries on too: only what is written later comes.
    const token = rest.pages.at(-1)?.continuationToken ?? '';
    await c.items.create({ id: 'late', orderId: 'k0', v: 1 });
    const late = await drain(feed(c, { changeFeedStartFrom: ChangeFeedStartFrom.Continuation(token) }));
    expect(ids(late.changes)).toEqual(['late']);
  });

  it('answers 304 while nothing changed, keeping its continuation, and goes on when something does', async () => {
    const c = await h.container();
    await c.items.create({ id: 'x', orderId: 'k', v: 1 });
    const iterator = feed(c, { changeFeedStartFrom: ChangeFeedStartFrom.Beginning() });
    const { pages } = await drain(iterator);
    const again = await iterator.readNext();
    expect(again.statusCode).toBe(StatusCodes.NotModified);
    expect(again.count).toBe(0);
    expect(again.continuationToken).toBe(pages.at(-1)?.continuationToken);
    expect(iterator.hasMoreResults).toBe(true);
    await c.items.upsert({ id: 'x', orderId: 'k', v: 2 });
    expect((await drain(iterator)).changes.map((d) => d.v)).toEqual([2]);
  });

  it('reads one partition key, from the beginning and from its continuation', async () => {
    const c = await h.container();
    for (let i = 0; i < 6; i += 1) await c.items.create({ id: `d${i}`, orderId: `k${i % 3}`, v: 1 });
    const one = await drain(feed(c, { changeFeedStartFrom: ChangeFeedStartFrom.Beginning('k1') }));
    expect(ids(one.changes)).toEqual(['d1', 'd4']);
    await c.items.create({ id: 'other', orderId: 'k2', v: 1 });
    await c.items.create({ id: 'mine', orderId: 'k1', v: 1 });
    const token = one.pages.at(-1)?.continuationToken ?? '';
    const resumed = await drain(feed(c, { changeFeedStartFrom: ChangeFeedStartFrom.Continuation(token) }));
    expect(ids(resumed.changes)).toEqual(['mine']);
  });

  it('reads a prefix of a hierarchical key through the EPK range the SDK hashes for it', async () => {
    const c = (
      await (
        await h.database()
      ).containers.create({
        id: `hier-${Date.now()}`,
        partitionKey: { paths: ['/tenant', '/orderId'], kind: PartitionKeyKind.MultiHash, version: 2 },
      })
    ).container;
    for (let i = 0; i < 12; i += 1)
      await c.items.create({ id: `d${i}`, tenant: `t${i % 4}`, orderId: `o${i % 3}`, v: 1 });
    const { changes } = await drain(feed(c, { changeFeedStartFrom: ChangeFeedStartFrom.Beginning(['t1']) }));
    expect(ids(changes)).toEqual(['d1', 'd5', 'd9']);
  });

  it('speaks the wire protocol: ETag continuations, item counts, 304 and clear 400s', async () => {
    const c = await h.container();
    const path = `/dbs/${(await h.database()).id}/colls/${c.id}/docs`;
    const get = (headers: Record<string, string>): Promise<Response> =>
      rawRequest(h.emulator, 'GET', path, { headers: { 'a-im': 'Incremental Feed', ...headers } });
    const now = await get({ 'if-none-match': '*' });
    expect(now.status).toBe(304);
    expect(now.headers.get('x-ms-item-count')).toBe('0');
    const start = now.headers.get('etag') ?? '';
    expect(start).toMatch(/^"\d+"$/);
    await c.items.create({ id: 'w', orderId: 'k', v: 1 });
    const page = await get({ 'if-none-match': start, 'x-ms-max-item-count': '10' });
    expect(page.status).toBe(200);
    expect(page.headers.get('x-ms-item-count')).toBe('1');
    const body = (await page.json()) as { Documents: Change[]; _count: number };
    expect(body._count).toBe(1);
    expect(page.headers.get('etag')).toBe(`"${body.Documents[0]?._lsn}"`);
    expect((await get({ 'if-none-match': page.headers.get('etag') ?? '' })).status).toBe(304);
    expect((await get({ 'if-none-match': '"99999999"' })).status).toBe(400);
    expect((await get({ 'if-none-match': 'not-an-etag' })).status).toBe(400);
    expect((await get({ 'if-modified-since': 'yesterday-ish' })).status).toBe(400);
    const fullFidelity = await get({ 'a-im': 'Full-Fidelity Feed' });
    expect(fullFidelity.status).toBe(400);
    expect(((await fullFidelity.json()) as { message: string }).message).toContain('Full-Fidelity Feed');
    expect((await get({ 'x-ms-documentdb-partitionkeyrangeid': '7' })).status).toBe(410);
  });

  it('serves partition key ranges as a change feed: the ranges once, then 304 under their ETag', async () => {
    const c = await h.container();
    const path = `/dbs/${(await h.database()).id}/colls/${c.id}/pkranges`;
    const first = await rawRequest(h.emulator, 'GET', path, { headers: { 'a-im': 'Incremental Feed' } });
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag') ?? '';
    expect(etag).not.toBe('');
    const next = await rawRequest(h.emulator, 'GET', path, {
      headers: { 'a-im': 'Incremental Feed', 'if-none-match': etag },
    });
    expect(next.status).toBe(304);
  });

  it('keeps continuations valid across a restart, also after the newest document was deleted', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'cosmos-cf-'));
    try {
      const first = await startHarness({ dataDir });
      const c = await first.container();
      await c.items.create({ id: 'a', orderId: 'k', v: 1 });
      await c.items.create({ id: 'b', orderId: 'k', v: 1 });
      const { pages } = await drain(feed(c, { changeFeedStartFrom: ChangeFeedStartFrom.Beginning() }));
      await c.item('b', 'k').delete();
      const token = pages.at(-1)?.continuationToken ?? '';
      const dbId = (await first.database()).id;
      await first.close();

      // Two restarts: the first replays the log as written, the second the compacted snapshot it left.
      await (await startHarness({ dataDir })).close();
      const second = await startHarness({ dataDir });
      try {
        const again = second.client.database(dbId).container(c.id);
        await again.items.create({ id: 'c', orderId: 'k', v: 1 });
        const resumed = await drain(feed(again, { changeFeedStartFrom: ChangeFeedStartFrom.Continuation(token) }));
        expect(ids(resumed.changes)).toEqual(['c']);
      } finally {
        await second.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('change feed over two partition key ranges', () => {
  let h: Harness;
  let c: Container;
  const KEYS = Array.from({ length: 20 }, (_, i) => `order-${i}`);
  beforeAll(async () => {
    h = await startHarness({ partitionKeyRanges: 2 });
    c = await h.container();
    for (const key of KEYS)
      for (let n = 0; n < 3; n += 1) await c.items.create({ id: `${key}-${n}`, orderId: key, v: n });
  });
  afterAll(async () => {
    await h.close();
  });

  it('has two feed ranges, each seeing exactly its own keys, together every change once', async () => {
    const ranges = await c.getFeedRanges();
    expect(ranges).toHaveLength(2);
    const perRange = await Promise.all(
      ranges.map(
        async (range) => (await drain(feed(c, { changeFeedStartFrom: ChangeFeedStartFrom.Beginning(range) }))).changes,
      ),
    );
    const keysOf = (changes: Change[]): Set<string> => new Set(changes.map((d) => d.orderId));
    const [left, right] = perRange.map(keysOf);
    expect(left?.size).toBeGreaterThan(0);
    expect(right?.size).toBeGreaterThan(0);
    expect([...(left ?? [])].filter((k) => right?.has(k))).toEqual([]);
    expect(
      perRange
        .flat()
        .map((d) => d.id)
        .sort(),
    ).toEqual(KEYS.flatMap((k) => [0, 1, 2].map((n) => `${k}-${n}`)).sort());
    // A key's changes are all in one range, in their write order.
    for (const changes of perRange)
      for (const key of keysOf(changes))
        expect(changes.filter((d) => d.orderId === key).map((d) => d.v)).toEqual([0, 1, 2]);
  });

  it('drains the whole container across both ranges, and resumes every range from one continuation', async () => {
    const iterator = feed(c, { changeFeedStartFrom: ChangeFeedStartFrom.Beginning(), maxItemCount: 7 });
    const { changes, pages } = await drain(iterator);
    expect(changes).toHaveLength(KEYS.length * 3);
    expect(new Set(ids(changes)).size).toBe(KEYS.length * 3);
    for (const key of KEYS.slice(0, 2)) await c.items.upsert({ id: `${key}-0`, orderId: key, v: 10 });
    const resumed = await drain(
      feed(c, { changeFeedStartFrom: ChangeFeedStartFrom.Continuation(pages.at(-1)?.continuationToken ?? '') }),
    );
    expect(resumed.changes.map((d) => [d.id, d.v]).sort()).toEqual([
      ['order-0-0', 10],
      ['order-1-0', 10],
    ]);
  });

  it('reads one partition key from whichever range holds it', async () => {
    const { changes } = await drain(feed(c, { changeFeedStartFrom: ChangeFeedStartFrom.Beginning('order-7') }));
    expect(ids(changes)).toEqual(['order-7-0', 'order-7-1', 'order-7-2']);
  });
});
