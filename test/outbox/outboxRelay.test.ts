import { describe, expect, it } from 'vitest';
import { AlertName } from '../../src/core/ports/telemetry.js';
import { OutboxTarget } from '../../src/core/documents/outboxHold.js';
import { Acknowledged } from '../../src/core/outbox/acknowledged.js';
import { OutboxRelay, type OutboxRelayDeps } from '../../src/core/outbox/outboxRelay.js';
import { InMemoryHoldStore, ManualClock, RecordingTelemetry } from '../../src/core/testing/index.js';
import { FakeSender, FakeWebhook, asChange, outboxRecordOf } from './support/relayFakes.js';

const BUDGET_MS = 10_000;

function relayStack(overrides: Partial<Omit<OutboxRelayDeps, 'holds'>> & { holds?: InMemoryHoldStore } = {}) {
  const clock = new ManualClock();
  const sender = new FakeSender();
  const webhook = new FakeWebhook();
  const holds = overrides.holds ?? new InMemoryHoldStore();
  const telemetry = new RecordingTelemetry();
  const relay = new OutboxRelay({ sender, webhook, holds, telemetry, clock, sleep: clock.sleep, random: () => 0.5, options: { retryBudgetMs: BUDGET_MS }, ...overrides });
  return { clock, sender, webhook, holds, telemetry, relay };
}

const changes = (...records: [string, number][]) => records.map(([o, s], i) => asChange(outboxRecordOf(o, s), i + 1));
const ids = (orderId: string, ...sequences: number[]) => sequences.map((s) => `outbox:${orderId}-${s}`);

describe('outbox relay', () => {
  it('sends each order of a batch as one order-events send in sequence order, then posts each record to the webhook in order', async () => {
    const { relay, sender, webhook } = relayStack();
    const order = { id: 'order', docType: 'order', orderId: 'a', lastSequence: 3 };
    const inbox = { id: 'inbox:x:a-1', docType: 'inbox', orderId: 'a' };
    const report = await relay.relay([asChange(order), ...changes(['a', 3], ['b', 1], ['a', 1]), asChange(inbox), ...changes(['a', 2])]);

    expect(report).toEqual({ orders: 2, delivered: 4, appended: 0, held: [] });
    expect(sender.sends).toContainEqual(ids('a', 1, 2, 3));
    expect(sender.sends).toContainEqual(ids('b', 1));
    expect(sender.sends).toHaveLength(2);
    expect(webhook.postedFor('a')).toEqual(ids('a', 1, 2, 3));
    expect(webhook.postedFor('b')).toEqual(ids('b', 1));
  });

  it('carries the contract: sessionId = orderId, messageId = outbox:<entryId>, the state as body, the entry trace', async () => {
    const seen: unknown[] = [];
    const { relay } = relayStack({ sender: { send: async (events) => void seen.push(...events) }, webhook: undefined });
    const record = { ...outboxRecordOf('o-1', 1), traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
    await relay.relay([asChange(record)]);
    expect(seen).toEqual([
      expect.objectContaining({
        messageId: 'outbox:o-1-1',
        sessionId: 'o-1',
        correlationId: 'L-1',
        contentType: 'application/json',
        applicationProperties: { sequence: 1, type: 'OrderCreated' },
        body: { orderId: 'o-1', sequence: 1, entryId: 'o-1-1', order: record.order },
        traceparent: record.traceparent,
      }),
    ]);
  });

  it('retries a failing target inside the budget and delivers without a hold when it recovers', async () => {
    const { relay, webhook, holds, clock } = relayStack();
    webhook.failFor('a', 3);
    const report = await relay.relay(changes(['a', 1], ['b', 1]));
    expect(report.held).toEqual([]);
    expect(webhook.postedFor('a')).toEqual(ids('a', 1));
    expect(clock.sleeps).toHaveLength(3);
    expect(holds.all()).toEqual([]);
  });

  it('holds an order whose webhook still fails after the budget, with the records it did not take, and goes on with the others', async () => {
    const { relay, webhook, sender, holds, telemetry } = relayStack();
    webhook.failFor('a', Number.POSITIVE_INFINITY, 2);
    const report = await relay.relay(changes(['a', 1], ['a', 2], ['a', 3], ['b', 1]));

    expect(report).toMatchObject({ delivered: 1, held: ['a'] });
    expect(sender.sentFor('a')).toEqual(ids('a', 1, 2, 3));
    expect(webhook.postedFor('a')).toEqual(ids('a', 1));
    expect(webhook.postedFor('b')).toEqual(ids('b', 1));
    const [hold] = holds.all();
    expect(hold).toMatchObject({ id: 'outbox-hold:a', docType: 'outbox-hold', orderId: 'a', failedTargets: ['webhook'], lastError: 'webhook answered HTTP 503' });
    expect(hold!.records.map((r) => [r.id, r.pendingTargets])).toEqual([
      ['outbox:a-2', ['webhook']],
      ['outbox:a-3', ['webhook']],
    ]);
    // Copies keep no TTL: a long hold loses nothing; the hold itself has none either.
    expect(hold!.records.some((r) => 'ttl' in r)).toBe(false);
    expect('ttl' in hold!).toBe(false);
    expect(telemetry.alerts).toEqual([
      { name: AlertName.OutboxFailed, fields: expect.objectContaining({ orderId: 'a', entryId: 'a-2', sequence: 2, targets: ['webhook'], records: 2 }) },
    ]);
  });

  it('holds an order that order-events refuses with every record owed to every target', async () => {
    const { relay, sender, webhook, holds } = relayStack();
    sender.failFor('a', 'reject');
    await relay.relay(changes(['a', 1], ['a', 2], ['b', 1]));
    expect(webhook.postedFor('a')).toEqual([]);
    expect(holds.all()[0]!.records.map((r) => r.pendingTargets)).toEqual([
      ['order-events', 'webhook'],
      ['order-events', 'webhook'],
    ]);
    expect(holds.all()[0]!.failedTargets).toEqual(['order-events', 'webhook']);
  });

  it("appends a held order's later records to its hold under its ETag instead of sending them, once per record across replays", async () => {
    const { relay, sender, webhook, holds } = relayStack();
    webhook.failFor('a');
    await relay.relay(changes(['a', 1], ['b', 1]));
    webhook.failures.clear();
    const report = await relay.relay(changes(['a', 2], ['a', 3], ['b', 2]));
    await relay.relay(changes(['a', 3])); // a replay after a crash before the checkpoint

    expect(report).toMatchObject({ delivered: 1, appended: 2, held: [] });
    expect(sender.sentFor('a')).toEqual(ids('a', 1));
    expect(webhook.postedFor('a')).toEqual([]);
    expect(holds.all()[0]!.records.map((r) => [r.id, r.pendingTargets])).toEqual([
      ['outbox:a-1', ['webhook']],
      ['outbox:a-2', ['order-events', 'webhook']],
      ['outbox:a-3', ['order-events', 'webhook']],
    ]);
    expect(holds.all()[0]!.failedTargets).toEqual(['order-events', 'webhook']);
  });

  it('fails the invocation, writing no hold, when every order of the batch fails (the trigger retries it)', async () => {
    const { relay, webhook, holds } = relayStack();
    webhook.failFor('a');
    webhook.failFor('b');
    await expect(relay.relay(changes(['a', 1], ['b', 1]))).rejects.toMatchObject({ code: 'OutboxBatchFailed' });
    expect(holds.all()).toEqual([]);
    expect(holds.requests.create).toBe(0);
  });

  it('fails the invocation on a transport error that outlasts the budget, even when other orders succeed', async () => {
    const { relay, sender, holds, clock } = relayStack();
    sender.failFor('a', 'transport');
    await expect(relay.relay(changes(['a', 1], ['b', 1]))).rejects.toMatchObject({ code: 'OutboxTransportFailed' });
    expect(holds.all()).toEqual([]);
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(BUDGET_MS);
    expect(clock.sleeps.length).toBeGreaterThan(1);
  });

  it('runs a failed batch again without repeating what a target already acknowledged to this instance', async () => {
    const { relay, sender, webhook } = relayStack();
    sender.failFor('b', 'transport');
    webhook.failFor('a', Number.POSITIVE_INFINITY, 3);
    const batch = changes(['a', 1], ['a', 2], ['a', 3], ['b', 1]);
    await expect(relay.relay(batch)).rejects.toMatchObject({ code: 'OutboxTransportFailed' });
    expect([sender.sentFor('a'), webhook.postedFor('a')]).toEqual([ids('a', 1, 2, 3), ids('a', 1, 2)]);

    sender.failures.clear();
    webhook.failures.clear();
    const report = await relay.relay(batch);

    expect(report).toEqual({ orders: 2, delivered: 4, appended: 0, held: [] });
    // a's send and first two POSTs went through the first time: only its third POST and b's records follow.
    expect(sender.sends).toEqual([ids('a', 1, 2, 3), ids('b', 1)]);
    expect([webhook.postedFor('a'), webhook.postedFor('b')]).toEqual([ids('a', 1, 2, 3), ids('b', 1)]);
  });

  it('sends the record of another order that reuses an entryId (unique per order only)', async () => {
    const { relay, sender, webhook } = relayStack();
    const shared = (orderId: string) => ({ ...outboxRecordOf(orderId, 1), id: 'outbox:e-1', entryId: 'e-1' });
    await relay.relay([asChange(shared('a'))]);
    await relay.relay([asChange(shared('b'))]);
    expect(sender.sends).toEqual([['outbox:e-1'], ['outbox:e-1']]);
    expect(webhook.posts).toEqual(['outbox:e-1', 'outbox:e-1']);
  });

  it('repeats the sends of a batch replayed by another instance (it knows nothing of them), with the same keys', async () => {
    const first = relayStack();
    const batch = changes(['a', 1], ['a', 2]);
    await first.relay.relay(batch);
    const other = relayStack();
    await other.relay.relay(batch);
    expect([first.sender.sends, other.sender.sends]).toEqual([[ids('a', 1, 2)], [ids('a', 1, 2)]]);
    expect(other.webhook.postedFor('a')).toEqual(ids('a', 1, 2));
  });

  it('fails the invocation when holds cannot be read, sending nothing for that order', async () => {
    const { relay, sender, holds } = relayStack();
    holds.failReads = Object.assign(new Error('Cosmos answered 503'), { code: 'StoreTransient' });
    await expect(relay.relay(changes(['a', 2]))).rejects.toMatchObject({ code: 'StoreTransient' });
    expect(sender.sends).toEqual([]);
  });

  it('reads each order hold once and remembers it across batches', async () => {
    const { relay, holds } = relayStack();
    await relay.relay(changes(['a', 2], ['b', 2]));
    await relay.relay(changes(['a', 3], ['b', 3]));
    await relay.relay(changes(['a', 4]));
    expect(holds.requests.read).toBe(2);
  });

  it('reads no hold for an order whose batch starts at its first record (nothing earlier can be held)', async () => {
    const { relay, holds } = relayStack();
    await relay.relay(changes(['a', 1], ['a', 2], ['b', 1]));
    await relay.relay(changes(['a', 3], ['b', 2]));
    expect(holds.requests.read).toBe(0);
  });

  it('reads "no hold" again once it is older than holdCacheMs', async () => {
    const { relay, holds, clock } = relayStack({ options: { retryBudgetMs: BUDGET_MS, holdCacheMs: 1000 } });
    await relay.relay(changes(['a', 2]));
    clock.advance(1000);
    await relay.relay(changes(['a', 3]));
    expect(holds.requests.read).toBe(2);
  });

  it('follows a hold another instance wrote, met in the change feed, without a read and without sending', async () => {
    const other = relayStack();
    other.webhook.failFor('a');
    await other.relay.relay(changes(['a', 1], ['b', 1]));
    const [hold] = other.holds.all();
    const etag = (await other.holds.read('a'))!.etag;
    const readsBefore = other.holds.requests.read;

    const { relay, sender } = relayStack({ holds: other.holds });
    await relay.relay([{ ...hold!, _etag: etag, _lsn: 10 }, ...changes(['a', 2])]);
    expect(sender.sentFor('a')).toEqual([]);
    expect(other.holds.all()[0]!.records.map((r) => r.id)).toEqual(ids('a', 1, 2));
    expect(other.holds.requests.read).toBe(readsBefore);
  });

  it('sends again once an operator released the hold it remembered (the append finds it gone)', async () => {
    const { relay, sender, webhook, holds } = relayStack();
    webhook.failFor('a');
    await relay.relay(changes(['a', 1], ['b', 1]));
    webhook.failures.clear();
    const [{ etag }] = [(await holds.read('a'))!];
    await holds.delete('a', etag);

    await relay.relay(changes(['a', 2]));
    expect(sender.sentFor('a')).toEqual(ids('a', 1, 2));
    expect(webhook.postedFor('a')).toEqual(ids('a', 2));
    expect(holds.all()).toEqual([]);
  });

  it('adds to a hold another writer created after this relay last read "no hold"', async () => {
    const { relay, webhook, holds, telemetry } = relayStack();
    await relay.relay(changes(['a', 1], ['b', 1])); // remembers: a has no hold
    const other = relayStack({ holds });
    other.webhook.failFor('a');
    await other.relay.relay(changes(['a', 2], ['b', 2]));

    webhook.failFor('a');
    await relay.relay(changes(['a', 3], ['b', 3]));
    expect(holds.requests.create).toBe(2);
    expect(holds.all()[0]!.records.map((r) => r.id)).toEqual(ids('a', 2, 3));
    expect(telemetry.alerts.map((a) => a.name)).toEqual([AlertName.OutboxFailed]);
  });
});

describe('acknowledged records', () => {
  it('keeps the most recent acknowledgements per target and order, dropping the oldest beyond its bound', () => {
    const acknowledged = new Acknowledged(2);
    acknowledged.add(OutboxTarget.Webhook, 'a', ['outbox:1', 'outbox:2']);
    acknowledged.add(OutboxTarget.OrderEvents, 'a', ['outbox:1']);
    expect([acknowledged.has(OutboxTarget.Webhook, 'a', 'outbox:1'), acknowledged.has(OutboxTarget.Webhook, 'a', 'outbox:2'), acknowledged.has(OutboxTarget.OrderEvents, 'a', 'outbox:1')]).toEqual([false, true, true]);
    acknowledged.add(OutboxTarget.Webhook, 'a', ['outbox:2', 'outbox:3']);
    expect([acknowledged.has(OutboxTarget.Webhook, 'a', 'outbox:2'), acknowledged.has(OutboxTarget.Webhook, 'a', 'outbox:3'), acknowledged.has(OutboxTarget.OrderEvents, 'a', 'outbox:1')]).toEqual([true, true, false]);
    // An entryId is unique per order only: the same record id of another order is not acknowledged.
    expect(acknowledged.has(OutboxTarget.Webhook, 'b', 'outbox:3')).toBe(false);
  });
});
