import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import rhea from 'rhea';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Broker } from '../src/broker/broker.js';
import type { Consumer } from '../src/broker/consumer.js';
import { EntityManager } from '../src/broker/entityManager.js';
import type { PersistNamespace } from '../src/broker/entityManager.js';
import { IDLE_SWEEP_MS } from '../src/broker/idleEntities.js';
import { parseMessage } from '../src/broker/wireMessage.js';
import { loadConfig } from '../src/config.js';
import type { NamespaceConfig } from '../src/config.js';
import { toConfigJson } from '../src/configWriter.js';
import { EntityCatalog } from '../src/store/entityCatalog.js';
import { MemoryStore } from '../src/store/memoryStore.js';

const MINUTE = 60_000;

/** A Config.json with queues (and topics) deleted after five idle minutes unless `AutoDeleteOnIdle` is given otherwise. */
function file(queues: { name: string; idle?: string }[], topics: unknown[] = []): object {
  return {
    UserConfig: {
      Namespaces: [
        {
          Name: 'idle',
          Queues: queues.map((q) => ({
            Name: q.name,
            Properties: q.idle === undefined ? {} : { AutoDeleteOnIdle: q.idle },
          })),
          Topics: topics,
        },
      ],
      Logging: { Type: 'Console' },
    },
  };
}

/** A receiving link that takes nothing: attached is all that matters here. */
function attachedReceiver(id: string): Consumer {
  return {
    id,
    mode: 'peekLock',
    sessionId: undefined,
    credit: () => 0,
    deliver: () => undefined,
    sessionLost: () => undefined,
  };
}

function stack(
  config: NamespaceConfig,
  persist: PersistNamespace = () => Promise.resolve(),
): { broker: Broker; entities: EntityManager } {
  const broker = new Broker(config, new MemoryStore());
  const entities = new EntityManager(broker, persist);
  entities.watchIdle();
  return { broker, entities };
}

/** Advances fake time by `ms`, letting the sweeps it crosses finish their saves. */
async function idleFor(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
}

describe('AutoDeleteOnIdle (Azure deletes an entity idle that long: no sends, receives or management operations)', () => {
  afterEach(() => vi.useRealTimers());

  it('deletes an idle queue once its idle time has passed, and never one without AutoDeleteOnIdle', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { broker } = stack(loadConfig(file([{ name: 'short-lived', idle: 'PT5M' }, { name: 'forever' }])));
    await idleFor(5 * MINUTE - IDLE_SWEEP_MS);
    expect(broker.findQueue('short-lived')).toBeDefined();
    await idleFor(IDLE_SWEEP_MS + IDLE_SWEEP_MS);
    expect(broker.findQueue('short-lived')).toBeUndefined();
    await idleFor(24 * 60 * MINUTE);
    expect(broker.findQueue('forever')).toBeDefined();
    broker.close();
  });

  it('keeps a queue with a receiver attached, and counts its idle time from when the receiver left', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { broker } = stack(loadConfig(file([{ name: 'watched', idle: 'PT5M' }])));
    const queue = broker.queueFor('watched');
    const receiver = attachedReceiver('r1');
    queue.addConsumer(receiver);
    await idleFor(60 * MINUTE);
    expect(broker.findQueue('watched')).toBe(queue);
    queue.removeConsumer(receiver);
    await idleFor(5 * MINUTE - IDLE_SWEEP_MS);
    expect(broker.findQueue('watched')).toBe(queue);
    await idleFor(2 * IDLE_SWEEP_MS);
    expect(broker.findQueue('watched')).toBeUndefined();
    broker.close();
  });

  it('keeps a session queue while a receiver waits for a session', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const config = loadConfig({
      UserConfig: {
        Namespaces: [
          {
            Name: 'idle',
            Queues: [{ Name: 'sessions', Properties: { RequiresSession: true, AutoDeleteOnIdle: 'PT5M' } }],
            Topics: [],
          },
        ],
      },
    });
    const { broker } = stack(config);
    const queue = broker.queueFor('sessions');
    queue.sessions?.accept(undefined, attachedReceiver('waiting'), 24 * 60 * MINUTE, () => undefined);
    await idleFor(30 * MINUTE);
    expect(broker.findQueue('sessions')).toBe(queue);
    broker.close();
  });

  it('starts the idle time again at each send and each management operation', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { broker, entities } = stack(loadConfig(file([{ name: 'used', idle: 'PT5M' }])));
    await idleFor(4 * MINUTE);
    const send = broker.send(broker.sendTarget('used'), [
      parseMessage(Buffer.from(rhea.message.encode({ body: 'keep me' } as never))),
    ]);
    send.commit();
    await idleFor(4 * MINUTE);
    expect(broker.findQueue('used')).toBeDefined();
    broker.touch('used/$management'); // what a $management request (peek, renew lock, …) records
    await idleFor(4 * MINUTE);
    const queue = broker.queueFor('used');
    await entities.putQueue(
      'used',
      queue.settings,
      { userMetadata: 'changed', maxSizeInMegabytes: 1024, enableBatchedOperations: true, supportOrdering: true },
      'update',
    );
    await idleFor(4 * MINUTE);
    expect(broker.findQueue('used')).toBeDefined();
    await idleFor(MINUTE + 2 * IDLE_SWEEP_MS);
    expect(broker.findQueue('used')).toBeUndefined();
    broker.close();
  });

  it('deletes an idle topic with its subscriptions, and a subscription idle on its own', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const topics = [
      { Name: 'quiet', Properties: { AutoDeleteOnIdle: 'PT10M' }, Subscriptions: [{ Name: 'all' }] },
      {
        Name: 'kept',
        Properties: {},
        Subscriptions: [{ Name: 'stale', Properties: { AutoDeleteOnIdle: 'PT5M' } }, { Name: 'lasting' }],
      },
    ];
    const { broker } = stack(loadConfig(file([], topics)));
    await idleFor(5 * MINUTE + 2 * IDLE_SWEEP_MS);
    expect([...(broker.findTopic('kept')?.subscriptions.keys() ?? [])]).toEqual(['lasting']);
    expect(broker.findTopic('quiet')).toBeDefined();
    await idleFor(5 * MINUTE);
    expect(broker.findTopic('quiet')).toBeUndefined();
    expect(broker.entityByName('quiet/Subscriptions/all')).toBeUndefined();
    broker.close();
  });

  it('keeps the last activity in the data directory, and an entity the file declares comes back after an idle deletion', async () => {
    // Only Date is faked: the saves write real files, and each sweep is run here, awaited.
    vi.useFakeTimers({ toFake: ['Date'] });
    const later = (ms: number): void => void vi.setSystemTime(Date.now() + ms);
    const dir = await mkdtemp(join(tmpdir(), 'sb-idle-'));
    try {
      const declared = loadConfig(
        file([
          { name: 'declared', idle: 'PT5M' },
          { name: 'made-later', idle: 'PT5M' },
        ]),
      );
      const catalog = EntityCatalog.at(dir);
      const first = new Broker(catalog.resolve(declared), new MemoryStore());
      const firstManager = new EntityManager(first, (ns, idle) => catalog.save(ns, idle));
      await catalog.save(first.snapshot());
      later(3 * MINUTE);
      first.touch('made-later');
      later(2 * MINUTE);
      expect(await firstManager.deleteIdle()).toEqual(['declared']);
      const lastActivity = first.queueFor('made-later').lastActivity;
      first.close();

      // A restart: the idle time of 'made-later' goes on from its saved activity; 'declared' is created again.
      const again = EntityCatalog.at(dir).resolve(declared);
      expect(again.queues.map((q) => q.name).sort()).toEqual(['declared', 'made-later']);
      expect(again.queues.find((q) => q.name === 'made-later')?.meta.accessedAt).toBe(lastActivity);
      const second = new Broker(again, new MemoryStore());
      const secondManager = new EntityManager(second, () => Promise.resolve());
      expect(second.queueFor('made-later').lastActivity).toBe(lastActivity);
      vi.setSystemTime(lastActivity + 5 * MINUTE);
      expect(await secondManager.deleteIdle()).toEqual(['made-later']);
      expect(second.findQueue('declared')).toBeDefined();
      second.close();
    } finally {
      vi.useRealTimers();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reads AutoDeleteOnIdle from the entity file, refuses less than five minutes, and writes it back', () => {
    const config = loadConfig(file([{ name: 'q', idle: 'PT1H' }]));
    expect(config.queues[0]?.settings.autoDeleteOnIdleMs).toBe(60 * MINUTE);
    expect(loadConfig(file([{ name: 'q' }])).queues[0]?.settings.autoDeleteOnIdleMs).toBe(Infinity);
    expect(() => loadConfig(file([{ name: 'too-soon', idle: 'PT4M' }]))).toThrow(
      /too-soon.*AutoDeleteOnIdle.*at least PT5M/,
    );
    const written = toConfigJson(config) as {
      UserConfig: { Namespaces: { Queues: { Properties: Record<string, unknown> }[] }[] };
    };
    expect(written.UserConfig.Namespaces[0]?.Queues[0]?.Properties.AutoDeleteOnIdle).toBe('PT1H');
    expect(loadConfig(written).queues[0]?.settings.autoDeleteOnIdleMs).toBe(60 * MINUTE);
  });
});
