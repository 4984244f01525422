import { describe, expect, it } from 'vitest';
import { AlertName } from '../../src/core/ports/telemetry.js';
import { OutboxTarget, type OutboxHold } from '../../src/core/documents/outboxHold.js';
import { Acknowledged } from '../../src/core/outbox/acknowledged.js';
import { OutboxRelay, type OutboxRelayDeps } from '../../src/core/outbox/outboxRelay.js';
import { InMemoryHoldStore, ManualClock, RecordingTelemetry } from '../support/fakes/index.js';
import { FakeSender, FakeWebhook, asChange, outboxRecordOf, keyOf } from './support/relayFakes.js';
import { orderCloudEvent } from '../../src/core/outbox/orderCloudEvent.js';

const BUDGET_MS = 10_000;

function relayStack(overrides: Partial<Omit<OutboxRelayDeps, 'holds'>> & { holds?: InMemoryHoldStore } = {}) {
  const clock = overrides.clock instanceof ManualClock ? overrides.clock : new ManualClock();
  const sender = new FakeSender();
  const webhook = new FakeWebhook();
  const holds = overrides.holds ?? new InMemoryHoldStore();
  const telemetry = new RecordingTelemetry();
  const relay = new OutboxRelay({
    sender,
    webhook,
    holds,
    telemetry,
    clock,
    sleep: clock.sleep,
    random: () => 0.5,
    options: { retryBudgetMs: BUDGET_MS },
    ...overrides,
  });
  return { clock, sender, webhook, holds, telemetry, relay };
}

const changes = (...records: [string, number][]) => records.map(([o, s], i) => asChange(outboxRecordOf(o, s), i + 1));
const ids = (orderId: string, ...sequences: number[]) => sequences.map((s) => keyOf(orderId, s));
/** What the order's hold says is behind it: per held target the sequence delivered through, and the last held. */
const cursorOf = (holds: InMemoryHoldStore, orderId: string) => {
  const marker = holds.all().find((h) => h.orderId === orderId);
  return marker && { deliveredThrough: marker.deliveredThrough, heldThrough: marker.heldThrough };
};
const markerOf = (holds: InMemoryHoldStore, orderId: string) =>
  holds.all().find((h) => h.orderId === orderId) as OutboxHold | undefined;

describe('outbox relay', () => {
  it('sends each order of a batch as one order-events send in sequence order, then posts each record to the webhook in order', async () => {
    const { relay, sender, webhook } = relayStack();
    const order = { id: 'order', docType: 'order', orderId: 'a', lastSequence: 3 };
    const inbox = { id: 'inbox:x:a-1', docType: 'inbox', orderId: 'a' };
    const report = await relay.relay([
      asChange(order),
      ...changes(['a', 3], ['b', 1], ['a', 1]),
      asChange(inbox),
      ...changes(['a', 2]),
    ]);

    expect(report).toEqual({ orders: 2, delivered: 4, appended: 0, held: [] });
    expect(sender.sends).toContainEqual(ids('a', 1, 2, 3));
    expect(sender.sends).toContainEqual(ids('b', 1));
    expect(sender.sends).toHaveLength(2);
    expect(webhook.postedFor('a')).toEqual(ids('a', 1, 2, 3));
    expect(webhook.postedFor('b')).toEqual(ids('b', 1));
  });

  it("skips transaction documents: a batch of an order's transactions, amended too, sends and holds nothing", async () => {
    const { relay, sender, webhook, holds } = relayStack();
    const transaction = (orderId: string, transactionId: string, amount: number) => ({
      id: `txn:${transactionId}`,
      docType: 'transaction',
      orderId,
      transactionId,
      amount,
      addedSequence: 2,
    });
    const report = await relay.relay([
      asChange(transaction('a', 't-1', 5), 1),
      asChange(transaction('a', 't-1', 7), 2),
      asChange(transaction('b', 't-2', 1), 3),
    ]);
    const mixed = await relay.relay([asChange(transaction('a', 't-3', 1), 4), ...changes(['a', 1])]);

    expect(report).toEqual({ orders: 0, delivered: 0, appended: 0, held: [] });
    expect(mixed).toEqual({ orders: 1, delivered: 1, appended: 0, held: [] });
    expect(sender.sends).toEqual([ids('a', 1)]);
    expect(webhook.posts).toEqual(ids('a', 1));
    expect(holds.all()).toEqual([]);
  });

  it('carries the contract: sessionId = orderId, the CloudEvent as committed with its key as messageId, the entry trace', async () => {
    const seen: unknown[] = [];
    const { relay } = relayStack({ sender: { send: async (events) => void seen.push(...events) }, webhook: undefined });
    const record = {
      ...outboxRecordOf('o-1', 1),
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    };
    await relay.relay([asChange(record)]);
    expect(seen).toEqual([
      expect.objectContaining({
        messageId: keyOf('o-1', 1),
        sessionId: 'o-1',
        correlationId: 'L-1',
        contentType: 'application/cloudevents+json',
        applicationProperties: { sequence: 1, type: 'OrderCreated' },
        body: record.event,
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

  it('holds an order whose webhook still fails after the budget: one small marker, a cursor into the stored events', async () => {
    const { relay, webhook, sender, holds, telemetry, clock } = relayStack();
    webhook.failFor('a', Number.POSITIVE_INFINITY, 2);
    const report = await relay.relay(changes(['a', 1], ['a', 2], ['a', 3], ['b', 1]));

    expect(report).toMatchObject({ delivered: 2, appended: 2, held: ['a'] });
    expect(sender.sentFor('a')).toEqual(ids('a', 1, 2, 3));
    expect(webhook.postedFor('a')).toEqual(ids('a', 1));
    expect(webhook.postedFor('b')).toEqual(ids('b', 1));
    const marker = markerOf(holds, 'a')!;
    expect(marker).toMatchObject({
      id: 'outbox-hold:a',
      docType: 'outbox-hold',
      orderId: 'a',
      version: 3,
      targets: ['webhook'],
      deliveredThrough: { webhook: 1 },
      heldThrough: 3,
      attempts: 0,
      lastError: 'webhook answered HTTP 503',
    });
    // The one write of the hold: no copy of an event, nothing else.
    expect(holds.requests.write).toBe(1);
    expect(JSON.stringify(marker)).not.toContain('"event"');
    // The first release is due after OUTBOX_HOLD_RETRY_FIRST (PT1M by default), half of it jitter.
    const due = Date.parse(marker.nextAttempt) - clock.now();
    expect(due).toBeGreaterThanOrEqual(30_000);
    expect(due).toBeLessThanOrEqual(60_000);
    expect(telemetry.alerts).toEqual([
      {
        name: AlertName.OutboxFailed,
        fields: expect.objectContaining({
          orderId: 'a',
          entryId: 'a-2',
          sequence: 2,
          targets: ['webhook'],
          records: 2,
        }),
      },
    ]);
  });

  it('holds a lone failing order — alone in its batch — and relays the next batch of its feed range', async () => {
    const { relay, webhook, sender, holds } = relayStack();
    webhook.failFor('a');
    const report = await relay.relay(changes(['a', 1], ['a', 2]));
    expect(report).toMatchObject({ held: ['a'], appended: 2 });
    expect(cursorOf(holds, 'a')).toEqual({ deliveredThrough: { webhook: 0 }, heldThrough: 2 });

    await relay.relay(changes(['b', 1], ['a', 3]));
    expect(webhook.postedFor('b')).toEqual(ids('b', 1));
    // A webhook hold leaves order-events flowing: a-3 went there, and waits for the webhook behind a-1, a-2.
    expect(sender.sentFor('a')).toEqual(ids('a', 1, 2, 3));
    expect(webhook.postedFor('a')).toEqual([]);
    expect(markerOf(holds, 'a')).toMatchObject({ targets: ['webhook'], heldThrough: 3 });
  });

  it('holds every order of a batch when the webhook is down for all of them, order-events still flowing', async () => {
    const { relay, webhook, sender, holds, telemetry } = relayStack();
    webhook.failFor('a');
    webhook.failFor('b');
    const report = await relay.relay(changes(['a', 1], ['b', 1]));
    expect(report.held.sort()).toEqual(['a', 'b']);
    expect(sender.sends.flat().sort()).toEqual([...ids('a', 1), ...ids('b', 1)]);
    expect(holds.all().map((h) => h.orderId)).toEqual(['a', 'b']);
    expect(telemetry.alerts.map((a) => a.name)).toEqual([AlertName.OutboxFailed, AlertName.OutboxFailed]);
  });

  it('holds an order that order-events refuses (a record too large) for both targets, and its later records too', async () => {
    const { relay, sender, webhook, holds } = relayStack();
    sender.failFor('a', 'reject');
    await relay.relay(changes(['a', 1], ['a', 2], ['b', 1]));
    expect(webhook.postedFor('a')).toEqual([]);
    expect(markerOf(holds, 'a')!.targets).toEqual(['order-events', 'webhook']);
    sender.failures.clear();
    await relay.relay(changes(['a', 3]));
    expect(sender.sentFor('a')).toEqual([]);
    expect(cursorOf(holds, 'a')).toEqual({ deliveredThrough: { 'order-events': 0, webhook: 0 }, heldThrough: 3 });
  });

  it("raises a held order's cursor range once per batch, and not at all for a replay, here or elsewhere", async () => {
    const { relay, webhook, holds } = relayStack();
    webhook.failFor('a');
    await relay.relay(changes(['a', 1], ['b', 1]));
    webhook.failures.clear();
    const report = await relay.relay(changes(['a', 2], ['a', 3], ['b', 2]));
    expect(holds.requests.write).toBe(2);
    await relay.relay(changes(['a', 2], ['a', 3])); // a replay after a crash before the checkpoint
    await new OutboxRelay({
      sender: new FakeSender(),
      webhook,
      holds,
      telemetry: new RecordingTelemetry(),
      options: { retryBudgetMs: BUDGET_MS },
    }).relay(changes(['a', 3])); // and elsewhere

    expect(report).toMatchObject({ delivered: 1, appended: 2, held: [] });
    expect(holds.requests.write).toBe(2);
    expect(webhook.postedFor('a')).toEqual([]);
    expect(cursorOf(holds, 'a')).toEqual({ deliveredThrough: { webhook: 0 }, heldThrough: 3 });
  });

  it('keeps the marker the same small size however many events, however large, wait behind it', async () => {
    const { relay, webhook, holds } = relayStack();
    webhook.failFor('a');
    const big = (s: number) => asChange(outboxRecordOf('a', s, 60_000), s);
    await relay.relay([big(1), big(2), ...changes(['b', 1])]);
    // Its size but for the digits of heldThrough.
    const size = () => JSON.stringify({ ...markerOf(holds, 'a'), heldThrough: 0 }).length;
    const first = size();
    for (let s = 3; s <= 45; s += 3) await relay.relay([big(s), big(s + 1), big(s + 2)]);

    expect(markerOf(holds, 'a')!.heldThrough).toBe(47);
    expect(size()).toBe(first);
    expect(first).toBeLessThan(1024);
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
    webhook.failFor('a', 3, 3);
    const batch = changes(['a', 1], ['a', 2], ['a', 3], ['b', 1]);
    await expect(relay.relay(batch)).rejects.toMatchObject({ code: 'OutboxTransportFailed' });
    expect([sender.sentFor('a'), webhook.postedFor('a')]).toEqual([ids('a', 1, 2, 3), ids('a', 1, 2, 3)]);

    sender.failures.clear();
    const report = await relay.relay(batch);

    expect(report).toEqual({ orders: 2, delivered: 4, appended: 0, held: [] });
    expect(sender.sends).toEqual([ids('a', 1, 2, 3), ids('b', 1)]);
    expect([webhook.postedFor('a'), webhook.postedFor('b')]).toEqual([ids('a', 1, 2, 3), ids('b', 1)]);
  });

  it('delivers the records of two orders that reuse an entryId under two keys (an entryId is unique per order only)', async () => {
    const { relay, sender, webhook } = relayStack();
    const shared = (orderId: string) => {
      const record = outboxRecordOf(orderId, 1);
      return {
        ...record,
        id: 'entry:order-processor:e-1',
        entryId: 'e-1',
        ...orderCloudEvent({
          ...record.event.data,
          orderId,
          entryId: 'e-1',
          sequence: 1,
          committedAt: record.committedAt,
          traceparent: undefined,
        }),
      };
    };
    await relay.relay([asChange(shared('a'))]);
    await relay.relay([asChange(shared('b'))]);
    const [a, b] = [shared('a').key, shared('b').key];
    expect(a).not.toBe(b);
    expect(sender.sends).toEqual([[a], [b]]);
    expect(webhook.posts).toEqual([a, b]);
  });

  it('fails the invocation when holds cannot be read, sending nothing for that order', async () => {
    const { relay, sender, holds } = relayStack();
    holds.failReads = Object.assign(new Error('Cosmos answered 503'), { code: 'StoreTransient' });
    await expect(relay.relay(changes(['a', 2]))).rejects.toMatchObject({ code: 'StoreTransient' });
    expect(sender.sends).toEqual([]);
  });

  it('trusts its own "no hold" only for a batch that directly follows the last record it relayed, whatever the time', async () => {
    const { relay, holds, clock } = relayStack();
    await relay.relay(changes(['a', 1], ['a', 2], ['b', 1])); // first records: nothing before them to be held
    expect(holds.requests.read).toBe(0);
    clock.advance(3_600_000);
    await relay.relay(changes(['a', 3], ['b', 2])); // directly following, an hour later
    expect(holds.requests.read).toBe(0);
    await relay.relay(changes(['a', 5])); // a gap: a-4 went through someone else
    await relay.relay(changes(['b', 2])); // a replay
    await relay.relay(changes(['c', 7])); // an order never seen
    expect(holds.requests.read).toBe(3);
  });

  it('meets a hold written while its lease was away: the batch after it reads the marker and holds behind it', async () => {
    // Prepare: instance A relays a-1..a-3; the lease moves to B, whose webhook fails a-4 (B holds it); the lease
    // comes back to A within a minute, at a-5, without the marker in A's batch.
    const holds = new InMemoryHoldStore();
    const clock = new ManualClock();
    const a = relayStack({ holds, clock });
    const b = relayStack({ holds, clock });
    await a.relay.relay(changes(['a', 1], ['a', 2], ['a', 3]));
    b.webhook.failFor('a');
    await b.relay.relay(changes(['a', 4]));
    clock.advance(5_000);
    // Act
    await a.relay.relay(changes(['a', 5]));
    // Assess: a-5 waits behind a-4 for the webhook; nothing went out of order.
    expect(a.webhook.postedFor('a')).toEqual(ids('a', 1, 2, 3));
    expect(cursorOf(holds, 'a')).toEqual({ deliveredThrough: { webhook: 3 }, heldThrough: 5 });
  });

  it('follows a hold another instance wrote, met in the change feed, without a read', async () => {
    const other = relayStack();
    other.webhook.failFor('a');
    await other.relay.relay(changes(['a', 1], ['b', 1]));
    const stored = (await other.holds.read('a'))!;
    const readsBefore = other.holds.requests.read;

    const { relay, sender, webhook } = relayStack({ holds: other.holds });
    await relay.relay([{ ...stored.doc, _etag: stored.etag, _lsn: 10 }, ...changes(['a', 2])]);
    expect(sender.sentFor('a')).toEqual(ids('a', 2));
    expect(webhook.postedFor('a')).toEqual([]);
    expect(cursorOf(other.holds, 'a')).toEqual({ deliveredThrough: { webhook: 0 }, heldThrough: 2 });
    expect(other.holds.requests.read).toBe(readsBefore);
  });

  it('sends again once the hold it remembered is gone (raising it finds it gone)', async () => {
    const { relay, sender, webhook, holds } = relayStack();
    webhook.failFor('a');
    await relay.relay(changes(['a', 1], ['b', 1]));
    webhook.failures.clear();
    const { etag } = (await holds.read('a'))!;
    await holds.end('a', etag);

    await relay.relay(changes(['a', 2]));
    expect(sender.sentFor('a')).toEqual(ids('a', 1, 2));
    expect(webhook.postedFor('a')).toEqual(ids('a', 2));
    expect(holds.all()).toEqual([]);
  });

  it('joins a hold another writer created after this relay last saw "no hold", raising OutboxFailed once', async () => {
    const { relay, webhook, holds, telemetry } = relayStack();
    await relay.relay(changes(['a', 1], ['b', 1]));
    const other = relayStack({ holds });
    other.webhook.failFor('a');
    await other.relay.relay(changes(['a', 2], ['b', 2]));

    webhook.failFor('a');
    await relay.relay(changes(['a', 3], ['b', 3]));
    expect(cursorOf(holds, 'a')).toEqual({ deliveredThrough: { webhook: 1 }, heldThrough: 3 });
    expect(telemetry.alerts.map((a) => a.name)).toEqual([]);
    expect(other.telemetry.alerts.map((a) => a.name)).toEqual([AlertName.OutboxFailed]);
  });
});

describe('acknowledged records', () => {
  it('keeps the most recent acknowledgements per target and order, dropping the oldest beyond its bound', () => {
    const acknowledged = new Acknowledged(2);
    acknowledged.add(OutboxTarget.Webhook, 'a', ['outbox:1', 'outbox:2']);
    acknowledged.add(OutboxTarget.OrderEvents, 'a', ['outbox:1']);
    expect([
      acknowledged.has(OutboxTarget.Webhook, 'a', 'outbox:1'),
      acknowledged.has(OutboxTarget.Webhook, 'a', 'outbox:2'),
      acknowledged.has(OutboxTarget.OrderEvents, 'a', 'outbox:1'),
    ]).toEqual([false, true, true]);
    acknowledged.add(OutboxTarget.Webhook, 'a', ['outbox:2', 'outbox:3']);
    expect([
      acknowledged.has(OutboxTarget.Webhook, 'a', 'outbox:2'),
      acknowledged.has(OutboxTarget.Webhook, 'a', 'outbox:3'),
      acknowledged.has(OutboxTarget.OrderEvents, 'a', 'outbox:1'),
    ]).toEqual([true, true, false]);
    expect(acknowledged.has(OutboxTarget.Webhook, 'b', 'outbox:3')).toBe(false);
  });
});
