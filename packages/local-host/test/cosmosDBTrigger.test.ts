import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../test/support/serviceBusWaits.js';
import { TriggerFixture, gate, type Doc, type Invocation } from './support/cosmosTriggerFixture.js';
import { capturingLogger } from './support/logCapture.js';

const ids = (docs: Doc[]) => docs.map((d) => d.id);
const changeFeedReads = (f: TriggerFixture) => f.emulator.counters().changeFeed ?? 0;

describe('in-process Cosmos DB trigger, one feed range', () => {
  let f: TriggerFixture;
  beforeAll(async () => {
    f = await TriggerFixture.start(1);
  });
  afterEach(async () => {
    await f.closeHosts();
  });
  afterAll(async () => {
    await f?.close();
  });

  it('checkpoints a batch only after its invocation returned', async () => {
    const container = await f.container();
    await f.write(container, 3);
    const held = gate();
    const seen: Invocation[] = [];
    const registration = f.registration(container, {}, async (docs, host) => {
      seen.push({ host, ids: ids(docs) });
      await held.promise;
    });
    await f.host('A', registration);
    await until(() => seen.length === 1, 'the first invocation');
    const [before] = await f.leases(`${container.id}-`);
    held.open();
    await until(async () => (await f.leases(`${container.id}-`))[0]?.ContinuationToken !== null, 'the checkpoint');
    const [after] = await f.leases(`${container.id}-`);

    expect(seen).toEqual([{ host: 'A', ids: ['d-0', 'd-1', 'd-2'] }]);
    expect(before).toMatchObject({
      Owner: 'A',
      ContinuationToken: null,
      version: 1,
      LeaseToken: '-FF',
      FeedRange: { Range: { min: '', max: 'FF' } },
    });
    expect(after?.ContinuationToken).toMatch(/^"\d+"$/);
  });

  it('replays the batch of a crashed host on the host that takes its lease once it expired', async () => {
    const container = await f.container();
    await f.write(container, 2);
    const seen: Invocation[] = [];
    const never = gate();
    const registration = f.registration(container, {}, async (docs, host) => {
      seen.push({ host, ids: ids(docs) });
      if (host === 'A') await never.promise; // A dies inside its invocation
    });
    const a = await f.host('A', registration);
    await until(() => seen.length === 1, "A's invocation");
    a.crash();
    await f.host('B', registration);
    await until(() => seen.some((s) => s.host === 'B'), 'B taking over');
    await until(async () => (await f.leases(`${container.id}-`))[0]?.ContinuationToken !== null, "B's checkpoint");

    expect(seen).toEqual([
      { host: 'A', ids: ['d-0', 'd-1'] },
      { host: 'B', ids: ['d-0', 'd-1'] },
    ]);
    const [lease] = await f.leases(`${container.id}-`);
    expect(lease?.Owner).toBe('B');
  });

  it('runs a failed invocation again under the retry policy and, when the policy has no retry left, checkpoints it as the host does', async () => {
    const container = await f.container();
    await f.write(container, 2);
    const seen: Invocation[] = [];
    const registration = f.registration(
      container,
      { retry: { strategy: 'fixedDelay', maxRetryCount: 2, delayInterval: 10 } },
      async (docs, host) => {
        seen.push({ host, ids: ids(docs) });
        if (docs.some((d) => d.n < 2)) throw new Error('always fails');
      },
    );
    await f.host('A', registration);
    await until(() => seen.length === 3, 'three invocations');
    await f.write(container, 1, 2);
    await until(() => seen.length === 4, 'the next batch');
    expect(seen.map((s) => s.ids)).toEqual([['d-0', 'd-1'], ['d-0', 'd-1'], ['d-0', 'd-1'], ['d-2']]);
  });

  it('with an unbounded retry policy runs the batch until it succeeds, skipping nothing', async () => {
    const container = await f.container();
    await f.write(container, 2);
    const seen: string[][] = [];
    const registration = f.registration(
      container,
      { retry: { strategy: 'exponentialBackoff', maxRetryCount: -1, minimumInterval: 5, maximumInterval: 20 } },
      async (docs) => {
        seen.push(ids(docs));
        if (seen.length < 6) throw new Error('fails five times');
      },
    );
    await f.host('A', registration);
    await until(async () => (await f.leases(`${container.id}-`))[0]?.ContinuationToken !== null, 'the checkpoint');
    expect(seen).toEqual(Array.from({ length: 6 }, () => ['d-0', 'd-1']));
  });

  it('replays a batch whose checkpoint failed once, after the lease was given up and taken again — not in a loop while Cosmos DB fails', async () => {
    const container = await f.container();
    await f.write(container, 2);
    const seen: Invocation[] = [];
    const registration = f.registration(container, {}, async (docs, host) => {
      seen.push({ host, ids: ids(docs) });
      // Every lease write fails for a while from here: the checkpoint, the release, the first takes.
      if (seen.length === 1) f.emulator.faults.add({ operation: 'replace', status: 503, count: 4 });
    });
    await f.host('A', registration);
    await until(
      async () => (await f.leases(`${container.id}-`))[0]?.ContinuationToken !== null,
      'a checkpoint after the faults',
    );

    expect(f.emulator.faults.list().filter((r) => r.remaining > 0)).toEqual([]);
    expect(seen).toEqual([
      { host: 'A', ids: ['d-0', 'd-1'] },
      { host: 'A', ids: ['d-0', 'd-1'] },
    ]);
    const [lease] = await f.leases(`${container.id}-`);
    expect(lease?.Owner).toBe('A');
  });

  it('gives a lease up after a failed change feed read and goes on from its checkpoint once it takes it again', async () => {
    const container = await f.container();
    await f.write(container, 1);
    const seen: string[] = [];
    const registration = f.registration(container, {}, async (docs) => void seen.push(...ids(docs)));
    const { logger, lines } = capturingLogger();
    const a = await f.host('A', registration, logger);
    await until(() => seen.length === 1, 'the first document');
    await until(async () => (await f.leases(`${container.id}-`))[0]?.ContinuationToken !== null, 'its checkpoint');
    f.emulator.faults.add({ operation: 'changeFeed', status: 503, count: 1 });
    const givenUp = () =>
      lines.filter((l) => String(l.msg).startsWith('reading the change feed failed; releasing the lease'));
    await until(() => givenUp().length === 1, 'the lease given up');
    await f.write(container, 2, 1);
    await until(() => seen.length === 3, 'the later documents');

    expect(seen).toEqual(['d-0', 'd-1', 'd-2']);
    expect(a.ownedLeases('trigger')).toHaveLength(1);
  });

  it("logs a lease taken with the lease's owner beside the process's host, each under a key of its own", async () => {
    const container = await f.container();
    const { logger, texts } = capturingLogger();
    await f.host(
      'A',
      f.registration(container, {}, async () => {}),
      logger,
    );
    const acquired = () => texts.filter((t) => t.includes('"msg":"change feed lease acquired"'));
    await until(() => acquired().length === 1, 'the lease taken');

    const line = acquired()[0] as string;
    // A JSON reader keeps only the last of two equal keys: each must appear once.
    expect(line.match(/"host":/g)).toHaveLength(1);
    expect(JSON.parse(line)).toMatchObject({ host: 'local', owner: 'A' });
  });

  it('hands at most maxItemsPerInvocation documents to one invocation, in feed order', async () => {
    const container = await f.container();
    await f.write(container, 7);
    const seen: string[][] = [];
    await f.host(
      'A',
      f.registration(container, { maxItemsPerInvocation: 3 }, async (docs) => void seen.push(ids(docs))),
    );
    await until(() => seen.flat().length === 7, 'every document');
    expect(seen.map((s) => s.length)).toEqual([3, 3, 1]);
    expect(seen.flat().sort()).toEqual(['d-0', 'd-1', 'd-2', 'd-3', 'd-4', 'd-5', 'd-6']);
  });

  it('starts a new lease from the beginning with startFromBeginning, else from now', async () => {
    const container = await f.container();
    await f.write(container, 2);
    const fromStart: string[] = [];
    const fromNow: string[] = [];
    const reads = changeFeedReads(f);
    await f.host(
      'B',
      f.registration(
        container,
        { prefix: 'now-', startFromBeginning: false },
        async (docs) => void fromNow.push(...ids(docs)),
      ),
    );
    // B (the only reader yet) has read the feed once, "from now", before anything new is written.
    await until(() => changeFeedReads(f) > reads, "B's first read");
    await f.write(container, 1, 2);
    await f.host(
      'A',
      f.registration(container, { prefix: 'begin-' }, async (docs) => void fromStart.push(...ids(docs))),
    );
    await until(() => fromNow.length === 1 && fromStart.length === 3, 'both hosts caught up');
    expect(fromStart).toEqual(['d-0', 'd-1', 'd-2']);
    expect(fromNow).toEqual(['d-2']);
  });

  it('waits feedPollDelay after a read that found nothing new', async () => {
    const container = await f.container();
    await f.write(container, 1);
    const slow: string[] = [];
    const fast: string[] = [];
    const reads = changeFeedReads(f);
    await f.host(
      'slow',
      f.registration(
        container,
        { prefix: 'slow-', feedPollDelay: 3_600_000 },
        async (docs) => void slow.push(...ids(docs)),
      ),
    );
    // The only reader: its first read brings d-0, its second finds nothing new — then it waits an hour.
    await until(() => slow.length === 1 && changeFeedReads(f) >= reads + 2, "the slow host's empty read");
    await f.write(container, 1, 1);
    await f.host(
      'fast',
      f.registration(container, { prefix: 'fast-' }, async (docs) => void fast.push(...ids(docs))),
    );
    await until(() => fast.length === 2, 'the fast host reading both');
    expect(slow).toEqual(['d-0']);
  });

  it('resolves %SETTING% expressions from the app settings and refuses to start on a missing one, naming it', async () => {
    const container = await f.container();
    await f.write(container, 1);
    const seen: string[] = [];
    await f.host(
      'A',
      f.registration(container, {}, async (docs) => void seen.push(...ids(docs))),
    );
    await until(() => seen.length === 1, 'the document through %DB_NAME%');
    await expect(
      f.host(
        'B',
        f.registration(container, { containerName: '%NOT_SET%' }, async () => undefined),
      ),
    ).rejects.toThrow('function trigger: containerName "%NOT_SET%" names the app setting NOT_SET, which is not set');
  });

  it('starts despite Cosmos DB answering 503 to its first lease writes, as the host retries a listener', async () => {
    const container = await f.container();
    await f.write(container, 1);
    const seen: string[] = [];
    f.emulator.faults.add({ operation: 'create', status: 503, count: 2 });
    await f.host(
      'A',
      f.registration(container, {}, async (docs) => void seen.push(...ids(docs))),
    );
    await until(() => seen.length === 1, 'the document after the failed starts');
    expect(f.emulator.faults.list().filter((r) => r.remaining > 0)).toEqual([]);
  });

  it('refuses to start without its lease container unless told to create it', async () => {
    const container = await f.container();
    await expect(
      f.host(
        'A',
        f.registration(container, { leaseContainerName: 'missing-leases' }, async () => undefined),
      ),
    ).rejects.toThrow('the lease container db/missing-leases does not exist');
    await f.host(
      'B',
      f.registration(
        container,
        { leaseContainerName: 'made-leases', createLeaseContainerIfNotExists: true },
        async () => undefined,
      ),
    );
    const { resource } = await f.database.container('made-leases').read();
    expect(resource?.partitionKey?.paths).toEqual(['/id']);
  });
});

describe('in-process Cosmos DB trigger, two feed ranges and competing hosts', () => {
  let f: TriggerFixture;
  beforeAll(async () => {
    f = await TriggerFixture.start(2);
  });
  afterEach(async () => {
    await f.closeHosts();
  });
  afterAll(async () => {
    await f?.close();
  });

  it('splits the feed ranges between two hosts: the second steals one lease, and every document is delivered', async () => {
    const container = await f.container();
    const seen: Invocation[] = [];
    const registration = f.registration(container, {}, async (docs, host) => void seen.push({ host, ids: ids(docs) }));
    const a = await f.host('A', registration);
    expect(a.ownedLeases('trigger')).toHaveLength(2);
    const b = await f.host('B', registration);
    await until(() => b.ownedLeases('trigger').length === 1 && a.ownedLeases('trigger').length === 1, 'one lease each');
    const leases = await f.leases(`${container.id}-`);
    await f.write(container, 14);
    await until(() => new Set(seen.flatMap((s) => s.ids)).size === 14, 'every document');

    expect(leases.map((l) => l.Owner).sort()).toEqual(['A', 'B']);
    // One lease per feed range of the container, together covering the whole key space.
    const [low, high] = leases.map((l) => l.FeedRange.Range);
    expect([low?.min, low?.max === high?.min, high?.max]).toEqual(['', true, 'FF']);
    expect(leases.map((l) => l.LeaseToken)).toEqual([`-${low?.max}`, `${high?.min}-FF`]);
    // After the move each range is read by one host only: a document went to the host that owns its range.
    const byHost = new Map(seen.map((s) => [s.host, new Set<string>()]));
    for (const s of seen) for (const id of s.ids) byHost.get(s.host)!.add(id);
    const hostsOf = (id: string) => [...byHost].filter(([, set]) => set.has(id)).map(([h]) => h);
    expect(seen.flatMap((s) => s.ids).every((id) => hostsOf(id).length === 1)).toBe(true);
    expect(new Set(seen.map((s) => s.host))).toEqual(new Set(['A', 'B']));
  });

  it('lets the old owner finish the invocation it was running when its lease moved, without checkpointing over the new owner', async () => {
    const container = await f.container();
    await f.write(container, 14);
    const held = gate();
    const seen: Invocation[] = [];
    const registration = f.registration(container, {}, async (docs, host) => {
      seen.push({ host, ids: ids(docs) });
      if (host === 'A') await held.promise; // A is slow on both ranges
    });
    const a = await f.host('A', registration);
    await until(() => seen.filter((s) => s.host === 'A').length === 2, 'A invoked on both ranges');
    const b = await f.host('B', registration);
    await until(() => b.ownedLeases('trigger').length === 1, 'B stealing a lease');
    await until(() => seen.some((s) => s.host === 'B'), 'B replaying the moved range');
    // The overlap: A still runs the moved range's batch while B processes it too.
    const moved = (await f.leases(`${container.id}-`)).find((l) => l.Owner === 'B')!;
    held.open();
    await until(
      async () => (await f.leases(`${container.id}-`)).every((l) => l.ContinuationToken !== null),
      'both ranges checkpointed',
    );
    await until(() => a.ownedLeases('trigger').length === 1, 'A noticing the lost lease');
    const after = (await f.leases(`${container.id}-`)).find((l) => l.id === moved.id)!;

    expect(after.Owner).toBe('B');
    const bIds = seen.filter((s) => s.host === 'B').flatMap((s) => s.ids);
    const aIds = seen.filter((s) => s.host === 'A').flatMap((s) => s.ids);
    // B replayed the moved range's batch from its last checkpoint: those documents went to both.
    expect(bIds.length).toBeGreaterThan(0);
    expect(bIds.every((id) => aIds.includes(id))).toBe(true);
  });
});
