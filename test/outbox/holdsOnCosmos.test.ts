import { CosmosClient, type Container } from '@azure/cosmos';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CosmosOutboxHoldStore } from '../../src/adapters/outboxHoldCosmosStore.js';
import type { AppliedEntryRecord } from '../../src/core/documents/entryRecord.js';
import { releaseHold } from '../../src/core/outbox/holdRelease.js';
import { OutboxRelay } from '../../src/core/outbox/outboxRelay.js';
import { ManualClock, RecordingTelemetry } from '../support/fakes/index.js';
import { start, type CosmosEmulator } from '@ledger-convoy/cosmos-emulator';
import { FakeSender, FakeWebhook, asChange, keyOf, outboxRecordOf } from './support/relayFakes.js';

/*
 * Holds through the real SDK on the Cosmos emulator (its ETags, its queries of the stored events): the relay and
 * releases with fake targets, the entries' records written as the processor's batches write them.
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
    releaseHold({ holds, sender, webhook, clock, backoff: { firstMs: 60_000, maxMs: 300_000 } }, orderId);
  /** Commits the entries' records, then hands them to the relay as the change feed would. */
  const relayed = async (records: AppliedEntryRecord[]) => {
    for (const record of records) await container.items.upsert(record);
    return relay.relay(records.map((r) => asChange(r, r.sequence)));
  };
  return { clock, webhook, sender, holds, relay, relayed, release };
}

const ids = (orderId: string, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => keyOf(orderId, from + i));

describe('outbox holds on the Cosmos emulator', () => {
  it('holds more than 2 MB of events behind one small marker, and releases them all in order, page by page', async () => {
    const { relayed, webhook, holds, release } = stack();
    const o = `big-${Date.now()}`;
    webhook.failFor(o);
    const big = (s: number) => outboxRecordOf(o, s, 60_000);
    for (let s = 1; s <= 150; s += 3) await relayed([big(s), big(s + 1), big(s + 2)]);
    const marker = (await holds.read(o))!.doc;
    expect(marker).toMatchObject({ deliveredThrough: { webhook: 0 }, heldThrough: 150 });
    expect(JSON.stringify(marker).length).toBeLessThan(1024);
    const { resources: kinds } = await container.items
      .query<string>('SELECT DISTINCT VALUE c.docType FROM c', { partitionKey: o })
      .fetchAll();
    expect(kinds.sort()).toEqual(['entry', 'outbox-hold']);

    webhook.failures.clear();
    expect(await release(o)).toMatchObject({ outcome: 'released', delivered: { webhook: 150 } });
    expect(webhook.postedFor(o)).toEqual(ids(o, 1, 150));
    expect(await holds.read(o)).toBeUndefined();
  });

  it('loses nothing when the relay raises the hold while a release runs, and sends the next record itself after it', async () => {
    const { relayed, webhook, holds, release } = stack();
    const o = `race-${Date.now()}`;
    webhook.failFor(o);
    await relayed([1, 2].map((s) => outboxRecordOf(o, s)));
    webhook.failures.clear();
    const end = holds.end.bind(holds);
    let raised = 0;
    holds.end = async (orderId, etag) => {
      if (raised++ < 2) await relayed([outboxRecordOf(o, 3 + raised - 1)]);
      return end(orderId, etag);
    };
    expect(await release(o)).toMatchObject({ outcome: 'released', rounds: 3 });
    await relayed([outboxRecordOf(o, 5)]);
    expect(webhook.postedFor(o)).toEqual(ids(o, 1, 5));
  });
});
