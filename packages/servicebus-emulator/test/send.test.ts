import { isServiceBusError } from '@azure/service-bus';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { peekEverything, receiveExactly } from '../../../test/support/serviceBusWaits.js';
import { configWith, queue, startBus } from './helpers.js';
import type { TestBus } from './helpers.js';

const Q = {
  plain: 'send-plain',
  dedup: 'send-dedup',
  small: 'send-small',
  scheduled: 'send-scheduled',
  batch: 'send-batch',
};

afterEach(() => {
  vi.useRealTimers();
});

describe('sending with the real SDK', () => {
  let bus: TestBus;
  beforeAll(async () => {
    bus = await startBus(
      configWith([
        queue(Q.plain),
        queue(Q.batch),
        queue(Q.dedup, { RequiresDuplicateDetection: true, DuplicateDetectionHistoryTimeWindow: 'PT2S' }),
        queue(Q.small, { MaxMessageSizeInKilobytes: 1 }),
        queue(Q.scheduled),
      ]),
    );
  });
  afterAll(() => bus.close());

  it('round-trips body, system properties and typed application properties', async () => {
    // Prepare
    const sender = bus.client.createSender(Q.plain);
    const when = new Date('2024-01-02T03:04:05.000Z');
    await sender.sendMessages({
      body: { order: 7 },
      messageId: 'm-1',
      correlationId: 'c-1',
      subject: 'label',
      contentType: 'application/json',
      timeToLive: 60_000,
      applicationProperties: { n: 42, f: 1.5, s: 'text', b: true, d: when, big: 2 ** 40 },
    });
    // Act
    const receiver = bus.client.createReceiver(Q.plain, { receiveMode: 'receiveAndDelete' });
    const [m] = await receiveExactly(receiver, 1);
    // Assess
    expect(m?.body).toEqual({ order: 7 });
    expect(m?.messageId).toBe('m-1');
    expect(m?.correlationId).toBe('c-1');
    expect(m?.subject).toBe('label');
    expect(m?.contentType).toBe('application/json');
    expect(m?.timeToLive).toBe(60_000);
    expect(m?.applicationProperties).toEqual({ n: 42, f: 1.5, s: 'text', b: true, d: when.getTime(), big: 2 ** 40 });
    expect(m?.sequenceNumber?.toNumber()).toBeGreaterThan(0);
    expect(m?.enqueuedTimeUtc).toBeInstanceOf(Date);
    expect(m?.deliveryCount).toBe(0);
  });

  it('assigns a message id when the sender leaves it empty', async () => {
    const sender = bus.client.createSender(Q.plain);
    await sender.sendMessages({ body: 'no id' });
    const receiver = bus.client.createReceiver(Q.plain, { receiveMode: 'receiveAndDelete' });
    const [m] = await receiveExactly(receiver, 1);
    expect(m?.body).toBe('no id');
    expect(typeof m?.messageId === 'string' || typeof m?.messageId === 'number').toBe(true);
  });

  it('sizes batches from the link max-message-size and delivers a batch in order', async () => {
    const sender = bus.client.createSender(Q.batch);
    const batch = await sender.createMessageBatch();
    expect(batch.maxSizeInBytes).toBe(256 * 1024);
    for (let i = 0; i < 20; i++) expect(batch.tryAddMessage({ body: i, messageId: `b-${i}` })).toBe(true);
    await sender.sendMessages(batch);
    const receiver = bus.client.createReceiver(Q.batch, { receiveMode: 'receiveAndDelete' });
    const got = (await receiveExactly(receiver, 20)).map((m) => m.body);
    expect(got).toEqual([...Array(20).keys()]);
    expect(await peekEverything(receiver)).toEqual([]);
  });

  it('honours a per-queue max message size: the batch limit and MessageSizeExceeded', async () => {
    const sender = bus.client.createSender(Q.small);
    const batch = await sender.createMessageBatch();
    expect(batch.maxSizeInBytes).toBe(1024);
    const err = await sender.sendMessages({ body: 'x'.repeat(4000) }).catch((e: unknown) => e);
    expect(isServiceBusError(err) && err.code).toBe('MessageSizeExceeded');
    // The link still works afterwards.
    await sender.sendMessages({ body: 'fits' });
    const receiver = bus.client.createReceiver(Q.small, { receiveMode: 'receiveAndDelete' });
    expect((await receiveExactly(receiver, 1))[0]?.body).toBe('fits');
  });

  it('drops a repeated MessageId inside the duplicate-detection window and accepts it after', async () => {
    // The window (2 s) is judged on the broker's clock, `Date`: frozen, every resend below falls inside it however
    // slow the sends; moved on, the next one falls outside.
    vi.useFakeTimers({ toFake: ['Date'] });
    const sender = bus.client.createSender(Q.dedup);
    await sender.sendMessages({ body: 1, messageId: 'dup' });
    await sender.sendMessages({ body: 2, messageId: 'dup' });
    await sender.sendMessages([
      { body: 3, messageId: 'dup' },
      { body: 4, messageId: 'other' },
    ]);
    const receiver = bus.client.createReceiver(Q.dedup, { receiveMode: 'receiveAndDelete' });
    const first = await receiveExactly(receiver, 2);
    expect(first.map((m) => m.body)).toEqual([1, 4]);
    expect(await peekEverything(receiver)).toEqual([]);
    vi.setSystemTime(Date.now() + 2_100);
    await sender.sendMessages({ body: 5, messageId: 'dup' });
    const later = await receiveExactly(receiver, 1);
    expect(later.map((m) => m.body)).toEqual([5]);
  });

  it('rejects a sender for an unknown entity with MessagingEntityNotFound', async () => {
    const sender = bus.client.createSender('no-such-queue');
    const err = await sender.sendMessages({ body: 1 }).catch((e: unknown) => e);
    expect(isServiceBusError(err) && err.code).toBe('MessagingEntityNotFound');
  });
});

describe('scheduled messages', () => {
  let bus: TestBus;
  beforeAll(async () => {
    bus = await startBus(configWith([queue(Q.scheduled)]));
  });
  afterAll(() => bus.close());

  it('holds scheduled messages until their time, and cancel removes one', async () => {
    // Prepare: the broker's clock (`Date`) frozen, so "before the time" lasts as long as the test needs.
    vi.useFakeTimers({ toFake: ['Date'] });
    const sender = bus.client.createSender(Q.scheduled);
    const at = new Date(Date.now() + 800);
    const [keep, drop] = await sender.scheduleMessages([{ body: 'keep' }, { body: 'drop' }], at);
    await sender.cancelScheduledMessages(drop as never);
    // scheduledEnqueueTimeUtc on a plain send is honoured too.
    await sender.sendMessages({ body: 'plain-scheduled', scheduledEnqueueTimeUtc: at });
    const receiver = bus.client.createReceiver(Q.scheduled, { receiveMode: 'receiveAndDelete' });
    // Act / Assess: nothing before the time, peek shows them as scheduled.
    const peeked = await peekEverything(receiver, 10);
    expect(peeked.map((m) => [m.body, m.state])).toEqual([
      ['keep', 'scheduled'],
      ['plain-scheduled', 'scheduled'],
    ]);
    expect(peeked[0]?.sequenceNumber?.toNumber()).toBe(keep?.toNumber());
    expect(await receiver.receiveMessages(5, { maxWaitTimeInMs: 300 })).toHaveLength(0);
    // The clock reaches the time: the broker's next timer run makes both available.
    vi.setSystemTime(at);
    const got = await receiveExactly(receiver, 2);
    expect(got.map((m) => m.body).sort()).toEqual(['keep', 'plain-scheduled']);
  });
});
