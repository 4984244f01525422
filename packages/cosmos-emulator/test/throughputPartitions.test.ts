import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SUITE_PARTITION_KEY_RANGES, startHarness } from './harness.js';

/*
 * A container created with more throughput gets more physical partitions, as on the service: one per 6,000 RU/s
 * of manual throughput, one per 10,000 RU/s of autoscale maximum. Its partition key ranges (and so feed ranges and
 * bulk requests) follow, and stay after a restart.
 */

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('partitions from throughput', () => {
  it('serves a container as one range per 6,000 manual or 10,000 autoscale RU/s, at least the configured count', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'cosmos-ranges-'));
    dirs.push(dataDir);
    const first = await startHarness({ dataDir });
    const database = await first.database();
    const manual = (
      await database.containers.create({ id: 'manual', partitionKey: { paths: ['/pk'] }, throughput: 25_100 })
    ).container;
    const twoPartitions = (
      await database.containers.create({ id: 'two', partitionKey: { paths: ['/pk'] }, throughput: 12_000 })
    ).container;
    const autoscale = (
      await database.containers.create({ id: 'autoscale', partitionKey: { paths: ['/pk'] }, maxThroughput: 20_000 })
    ).container;
    const small = (await database.containers.create({ id: 'small', partitionKey: { paths: ['/pk'] }, throughput: 400 }))
      .container;
    expect((await manual.getFeedRanges()).length).toBe(Math.max(5, SUITE_PARTITION_KEY_RANGES));
    expect((await twoPartitions.getFeedRanges()).length).toBe(Math.max(2, SUITE_PARTITION_KEY_RANGES));
    expect((await autoscale.getFeedRanges()).length).toBe(Math.max(2, SUITE_PARTITION_KEY_RANGES));
    expect((await small.getFeedRanges()).length).toBe(SUITE_PARTITION_KEY_RANGES);

    // 300 reads over 300 keys: the legacy bulk API refuses more than 100 operations for one range.
    await manual.items.executeBulkOperations(
      Array.from({ length: 300 }, (_, i) => ({
        operationType: 'Create' as const,
        partitionKey: i,
        resourceBody: { id: `d${i}`, pk: i },
      })),
    );
    const reads = await manual.items.bulk(
      Array.from({ length: 300 }, (_, i) => ({ operationType: 'Read' as const, id: `d${i}`, partitionKey: i })),
    );
    expect(reads.every((r) => r.statusCode === 200)).toBe(true);
    await first.close();

    const second = await startHarness({ dataDir });
    const again = second.client.database(database.id).container('manual');
    expect((await again.getFeedRanges()).length).toBe(Math.max(5, SUITE_PARTITION_KEY_RANGES));
    expect((await again.items.query('SELECT VALUE COUNT(1) FROM c').fetchAll()).resources).toEqual([300]);
    await second.close();
  });
});
