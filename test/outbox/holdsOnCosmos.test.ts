import { CosmosClient, type Container } from '@azure/cosmos';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CosmosOutboxHoldStore } from '../../src/adapters/outboxHoldCosmosStore.js';
import { releaseHold } from '../../src/core/outbox/holdRelease.js';
import { OutboxRelay } from '../../src/core/outbox/outboxRelay.js';
import { ManualClock, RecordingTelemetry } from '../support/fakes/index.js';
import { start, type CosmosEmulator } from '@ledger-convoy/cosmos-emulator';
import { FakeSender, FakeWebhook, asChange, keyOf, outboxRecordOf } from './support/relayFakes.js';

/*
 * Holds through the real SDK on the Cosmos emulator (its 2 MB document limit, its transactional batches, ETags):
 * the relay and releases with fake targets.
 */
let emulator: CosmosEmulator;
let client: CosmosClient;
let container: Container;

beforeAll(async () => {
  emulator = await start({ port: 0 });
  client = new CosmosClient({
    endpoint: emulator.endpoint,
    key: emulator.key,
    connectionPolicy: { enableEndpointDiscovery: false },
  });
  const { database } = await client.databases.createIfNotExists({ id: 'convoy' });
  ({ container } = await database.containers.createIfNotExists({
    id: 'orders',
    partitionKey: { paths: ['/orderId'] },
  }));
});

afterAll(async () => {
  client?.dispose();
  await emulator?.close();
});

function stack() {
  const clock = new ManualClock();
  const webhook = new FakeWebhook();
  const sender = new FakeSender();
  const holds = new CosmosOutboxHoldStore(container);
  const relay = new OutboxRelay({
    sender,
    webhook,
    holds,
    telemetry: new RecordingTelemetry(),
    clock,
    sleep: clock.sleep,
    options: { retryBudgetMs: 2_000 },
  });
  const release = (orderId: string) =>
    releaseHold({ holds, sender, webhook, clock, backoff: { firstMs: 60_000, maxMs: 3_600_000 } }, orderId);
  return { clock, webhook, sender, holds, relay, release };
}

const ids = (orderId: string, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => keyOf(orderId, from + i));

describe('outbox holds on the Cosmos emulator', () => {
  it('holds more records than fit in one 2 MB document, and releases them all in order', async () => {
    const { relay, webhook, holds, release } = stack();
    const o = `big-${Date.now()}`;
    webhook.failFor(o);
    const big = (s: number) => asChange(outboxRecordOf(o, s, 60_000), s);
    for (let s = 1; s <= 45; s += 3) await relay.relay([big(s), big(s + 1), big(s + 2)]);
    const held = await holds.heldRecords(o);
    expect(held).toHaveLength(45);
    expect(held.reduce((n, r) => n + JSON.stringify(r).length, 0)).toBeGreaterThan(2 * 1024 * 1024);

    webhook.failures.clear();
    expect(await release(o)).toMatchObject({ outcome: 'released', delivered: { webhook: 45 } });
    expect(webhook.postedFor(o)).toEqual(ids(o, 1, 45));
    expect([await holds.read(o), await holds.countHeld(o)]).toEqual([undefined, 0]);
  });

  it('loses nothing when the relay appends while a release runs, and sends the next record itself after it', async () => {
    const { relay, webhook, holds, release } = stack();
    const o = `race-${Date.now()}`;
    webhook.failFor(o);
    await relay.relay([1, 2].map((s) => asChange(outboxRecordOf(o, s), s)));
    webhook.failures.clear();
    const appendDuring = holds.deleteHeld.bind(holds);
    let appended = 0;
    holds.deleteHeld = async (orderId, id) => {
      if (appended++ < 2) await relay.relay([asChange(outboxRecordOf(o, 3 + appended - 1), 10)]);
      await appendDuring(orderId, id);
    };
    expect(await release(o)).toMatchObject({ outcome: 'released', rounds: 2 });
    await relay.relay([asChange(outboxRecordOf(o, 5), 11)]);
    expect(webhook.postedFor(o)).toEqual(ids(o, 1, 5));
  });
});
