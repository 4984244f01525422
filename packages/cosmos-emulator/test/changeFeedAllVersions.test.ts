import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ChangeFeedMode,
  ChangeFeedPolicy,
  ChangeFeedRetentionTimeSpan,
  ChangeFeedStartFrom,
  StatusCodes,
} from '@azure/cosmos';
import type { ChangeFeedPullModelIterator, Container, Database } from '@azure/cosmos';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, uniqueName } from './harness.js';
import type { Harness } from './harness.js';

/*
 * The all-versions-and-deletes change feed (A-IM `Full-Fidelity Feed`) of a container whose change feed policy
 * keeps changes: creates, replaces and deletes in order, each with its metadata, from now or a continuation.
 */

interface Version {
  current?: { id: string; pk: string; v?: number };
  metadata: {
    operationType: string;
    lsn: number;
    previousImageLSN: number;
    timeToLiveExpired: boolean;
    id?: string;
    partitionKey?: Record<string, unknown>;
  };
}

/** Hang guard: reading stops as soon as the feed answers 304. */
const MAX_PAGES = 100;

async function drain(iterator: ChangeFeedPullModelIterator<Version>): Promise<Version[]> {
  const versions: Version[] = [];
  for (let i = 0; i < MAX_PAGES; i += 1) {
    const page = await iterator.readNext();
    if (page.statusCode === StatusCodes.NotModified) return versions;
    expect(page.statusCode).toBe(StatusCodes.Ok);
    versions.push(...page.result);
  }
  throw new Error(`the change feed did not answer 304 within ${MAX_PAGES} pages`);
}

const keeping = { changeFeedPolicy: new ChangeFeedPolicy(ChangeFeedRetentionTimeSpan.fromMinutes(5)) };

function allVersions(
  container: Container,
  startFrom: ChangeFeedStartFrom,
  maxItemCount = 10,
): ChangeFeedPullModelIterator<Version> {
  return container.items.getChangeFeedIterator<Version>({
    changeFeedStartFrom: startFrom,
    changeFeedMode: ChangeFeedMode.AllVersionsAndDeletes,
    maxItemCount,
  });
}

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('change feed (all versions and deletes)', () => {
  let h: Harness;
  let db: Database;
  beforeAll(async () => {
    h = await startHarness();
    db = await h.database();
  });
  afterAll(async () => {
    await h.close();
  });

  it('reports creates, replaces and deletes in order from now, each with its metadata', async () => {
    const { container } = await db.containers.create({
      id: uniqueName('c'),
      partitionKey: { paths: ['/pk'] },
      ...keeping,
    });
    await container.items.create({ id: 'before', pk: 'p1' });
    const iterator = allVersions(container, ChangeFeedStartFrom.Now(), 2);
    expect(await drain(iterator)).toEqual([]);

    await container.items.create({ id: 'a', pk: 'p1', v: 1 });
    await container.items.upsert({ id: 'a', pk: 'p1', v: 2 });
    await container.items.create({ id: 'b', pk: 'p2', v: 1 });
    await container.item('a', 'p1').delete();
    // With several ranges the SDK reads them in turn: the order that matters is the LSNs'.
    const versions = (await drain(iterator)).sort((x, y) => x.metadata.lsn - y.metadata.lsn);
    expect(versions.map((v) => [v.metadata.operationType, v.current?.id ?? v.metadata.id, v.current?.v])).toEqual([
      ['create', 'a', 1],
      ['replace', 'a', 2],
      ['create', 'b', 1],
      ['delete', 'a', undefined],
    ]);
    const [created, replaced, , deleted] = versions;
    expect(replaced?.metadata.previousImageLSN).toBe(created?.metadata.lsn);
    expect(deleted?.metadata.previousImageLSN).toBe(replaced?.metadata.lsn);
    expect(deleted?.metadata.partitionKey).toEqual({ pk: 'p1' });
    expect(versions.every((v) => v.metadata.timeToLiveExpired === false)).toBe(true);
    expect(new Set(versions.map((v) => v.metadata.lsn)).size).toBe(4);
    // The delete is not in the latest-version feed, which never reports deletes.
    const latest = container.items.getChangeFeedIterator<Version>({
      changeFeedStartFrom: ChangeFeedStartFrom.Beginning(),
    });
    expect((await drain(latest)).map((d) => (d as unknown as { id: string }).id).sort()).toEqual(['b', 'before']);
  });

  it('reads one partition key alone', async () => {
    const { container } = await db.containers.create({
      id: uniqueName('c'),
      partitionKey: { paths: ['/pk'] },
      ...keeping,
    });
    const iterator = allVersions(container, ChangeFeedStartFrom.Now('p1'));
    await drain(iterator);
    await container.items.create({ id: 'a', pk: 'p1' });
    await container.items.create({ id: 'b', pk: 'p2' });
    await container.item('a', 'p1').delete();
    expect((await drain(iterator)).map((v) => `${v.metadata.operationType}:${v.current?.id ?? v.metadata.id}`)).toEqual(
      ['create:a', 'delete:a'],
    );
  });

  it('refuses with 400 a container whose policy keeps no changes, and a start from the beginning', async () => {
    const { container } = await db.containers.create({ id: uniqueName('c'), partitionKey: { paths: ['/pk'] } });
    const noPolicy = await allVersions(container, ChangeFeedStartFrom.Now())
      .readNext()
      .then(
        () => undefined,
        (e: { code?: number; message?: string }) => e,
      );
    expect(noPolicy?.code).toBe(400);
    expect(noPolicy?.message).toContain('changeFeedPolicy');
    const kept = (await db.containers.create({ id: uniqueName('c'), partitionKey: { paths: ['/pk'] }, ...keeping }))
      .container;
    const fromBeginning = await allVersions(kept, ChangeFeedStartFrom.Beginning())
      .readNext()
      .then(
        () => undefined,
        (e: { code?: number; message?: string }) => e,
      );
    expect(fromBeginning?.code).toBe(400);
  });
});

describe('change feed (all versions and deletes) across a restart', () => {
  it('accepts a continuation issued before the restart and reports what follows it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'cosmos-versions-'));
    dirs.push(dataDir);
    const first = await startHarness({ dataDir });
    const database = await first.database();
    const { container } = await database.containers.create({
      id: 'kept',
      partitionKey: { paths: ['/pk'] },
      ...keeping,
    });
    const iterator = allVersions(container, ChangeFeedStartFrom.Now());
    await drain(iterator);
    await container.items.create({ id: 'a', pk: 'p' });
    await container.item('a', 'p').delete();
    await drain(iterator);
    const page = await iterator.readNext();
    const continuation = page.continuationToken;
    await first.close();

    const second = await startHarness({ dataDir });
    const again = second.client.database(database.id).container('kept');
    await again.items.create({ id: 'b', pk: 'p' });
    const resumed = allVersions(again, ChangeFeedStartFrom.Continuation(continuation));
    expect((await drain(resumed)).map((v) => `${v.metadata.operationType}:${v.current?.id}`)).toEqual(['create:b']);
    await second.close();
  });
});
