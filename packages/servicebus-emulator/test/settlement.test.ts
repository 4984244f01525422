import { isServiceBusError } from '@azure/service-bus';
import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { PATIENCE_MS, peekEverything, receiveExactly } from '../../../test/support/serviceBusWaits.js';
import { configWith, queue, startBus } from './helpers.js';
import type { TestBus } from './helpers.js';

const Q = {
  complete: 'settle-complete',
  abandon: 'settle-abandon',
  dead: 'settle-dead',
  defer: 'settle-defer',
  renew: 'settle-renew',
  expiry: 'settle-expiry',
  max: 'settle-max',
  peek: 'settle-peek',
  compete: 'settle-compete',
};

async function receiveOne(
  bus: TestBus,
  name: string,
): Promise<{ m: ServiceBusReceivedMessage; receiver: ReturnType<TestBus['client']['createReceiver']> }> {
  // Auto lock renewal off: lock expiry is what some tests observe.
  const receiver = bus.client.createReceiver(name, { maxAutoLockRenewalDurationInMs: 0 });
  const [m] = await receiveExactly(receiver, 1, `messages on ${name}`);
  return { m: m as ServiceBusReceivedMessage, receiver };
}

describe('peekLock settlement with the real SDK', () => {
  let bus: TestBus;
  beforeAll(async () => {
    bus = await startBus(
      configWith([
        queue(Q.complete),
        queue(Q.abandon),
        queue(Q.dead),
        queue(Q.defer),
        queue(Q.renew, { LockDuration: 'PT1S' }),
        // A receiver of the competing test holds its first message until the others have one: a lock that cannot lapse meanwhile.
        queue(Q.expiry, { LockDuration: 'PT1S' }),
        queue(Q.max, { MaxDeliveryCount: 2 }),
        queue(Q.peek),
        queue(Q.compete, { LockDuration: 'PT5M' }),
      ]),
    );
  });
  afterAll(() => bus.close());
  afterEach(() => {
    vi.useRealTimers();
  });

  it('complete removes the message; receiveAndDelete needs no settlement', async () => {
    await bus.client.createSender(Q.complete).sendMessages([{ body: 'a' }, { body: 'b' }]);
    const { m, receiver } = await receiveOne(bus, Q.complete);
    expect(m.lockedUntilUtc?.getTime()).toBeGreaterThan(Date.now());
    await receiver.completeMessage(m);
    const rad = bus.client.createReceiver(Q.complete, { receiveMode: 'receiveAndDelete' });
    expect((await receiveExactly(rad, 1))[0]?.body).toBe('b');
    expect(await peekEverything(rad)).toHaveLength(0);
  });

  it('abandon merges properties and redelivers with delivery count + 1', async () => {
    await bus.client
      .createSender(Q.abandon)
      .sendMessages({ body: 'x', applicationProperties: { keep: 1, change: 'old' } });
    const { m, receiver } = await receiveOne(bus, Q.abandon);
    expect(m.deliveryCount).toBe(0);
    await receiver.abandonMessage(m, { change: 'new', added: true });
    const [again] = await receiveExactly(receiver, 1);
    expect(again?.deliveryCount).toBe(1);
    expect(again?.applicationProperties).toEqual({ keep: 1, change: 'new', added: true });
    await receiver.completeMessage(again as ServiceBusReceivedMessage);
  });

  it('dead-letter moves the message to $DeadLetterQueue with reason and description, no source', async () => {
    await bus.client
      .createSender(Q.dead)
      .sendMessages({ body: 'poison', messageId: 'p-1', applicationProperties: { tenant: 't' } });
    const { m, receiver } = await receiveOne(bus, Q.dead);
    await receiver.deadLetterMessage(m, {
      deadLetterReason: 'SchemaValidationFailed',
      deadLetterErrorDescription: 'bad field',
      extra: 'e',
    } as never);
    const dlq = bus.client.createReceiver(Q.dead, { subQueueType: 'deadLetter' });
    const [d] = await receiveExactly(dlq, 1);
    expect(d?.messageId).toBe('p-1');
    expect(d?.deadLetterReason).toBe('SchemaValidationFailed');
    expect(d?.deadLetterErrorDescription).toBe('bad field');
    // DeadLetterSource is only set on messages auto-forwarded out of a dead-letter queue.
    expect(d?.deadLetterSource).toBeUndefined();
    expect(d?.applicationProperties?.tenant).toBe('t');
    await dlq.completeMessage(d as ServiceBusReceivedMessage);
    expect(await peekEverything(receiver)).toHaveLength(0);
  });

  it('defer sets a message aside, reachable only by sequence number', async () => {
    await bus.client.createSender(Q.defer).sendMessages([{ body: 'later' }, { body: 'next' }]);
    const { m, receiver } = await receiveOne(bus, Q.defer);
    await receiver.deferMessage(m);
    const [next] = await receiveExactly(receiver, 1);
    expect(next?.body).toBe('next');
    await receiver.completeMessage(next as ServiceBusReceivedMessage);
    // The deferred message is older than anything sent now: were it still deliverable, it would come first.
    await bus.client.createSender(Q.defer).sendMessages({ body: 'sentinel' });
    const [sentinel] = await receiveExactly(receiver, 1);
    expect(sentinel?.body).toBe('sentinel');
    await receiver.completeMessage(sentinel as ServiceBusReceivedMessage);
    const [deferred] = await receiver.receiveDeferredMessages(m.sequenceNumber as never);
    expect(deferred?.body).toBe('later');
    expect(deferred?.state).toBe('deferred');
    await receiver.completeMessage(deferred as ServiceBusReceivedMessage);
    const err = await receiver.receiveDeferredMessages(m.sequenceNumber as never).catch((e: unknown) => e);
    expect(isServiceBusError(err) && err.code).toBe('MessageNotFound');
  });

  it('renewMessageLock extends the lock past its original expiry', async () => {
    // The 1 s lock runs on the broker's clock (`Date`), frozen here and moved by hand: no step can outlast it by accident.
    vi.useFakeTimers({ toFake: ['Date'] });
    await bus.client.createSender(Q.renew).sendMessages({ body: 'long job' });
    const { m, receiver } = await receiveOne(bus, Q.renew);
    const first = m.lockedUntilUtc?.getTime() ?? 0;
    vi.setSystemTime(Date.now() + 600);
    const renewed = await receiver.renewMessageLock(m);
    expect(renewed.getTime()).toBeGreaterThan(first);
    vi.setSystemTime(Date.now() + 600); // past the original lock, inside the renewed one
    await receiver.completeMessage(m);
    expect(await peekEverything(receiver)).toHaveLength(0);
  });

  it('an expired lock redelivers the message and settling with the stale lock fails with MessageLockLost', async () => {
    // The broker's clock (`Date`) frozen while the lock is taken, then moved past it: the broker's next timer run
    // gives the message back, and the other receiver waits for exactly that.
    vi.useFakeTimers({ toFake: ['Date'] });
    await bus.client.createSender(Q.expiry).sendMessages({ body: 'slow' });
    const { m, receiver } = await receiveOne(bus, Q.expiry);
    vi.setSystemTime(Date.now() + 1_300);
    const other = bus.newClient().createReceiver(Q.expiry);
    const [again] = await receiveExactly(other, 1);
    expect(again?.body).toBe('slow');
    expect(again?.deliveryCount).toBe(1);
    const err = await receiver.completeMessage(m).catch((e: unknown) => e);
    expect(isServiceBusError(err) && err.code).toBe('MessageLockLost');
    await other.completeMessage(again as ServiceBusReceivedMessage);
  });

  it('dead-letters with MaxDeliveryCountExceeded after MaxDeliveryCount deliveries', async () => {
    await bus.client.createSender(Q.max).sendMessages({ body: 'retry me' });
    const receiver = bus.client.createReceiver(Q.max);
    for (let i = 0; i < 2; i++) {
      const [m] = await receiveExactly(receiver, 1);
      expect(m?.deliveryCount).toBe(i);
      await receiver.abandonMessage(m as ServiceBusReceivedMessage);
    }
    expect(await peekEverything(receiver)).toHaveLength(0);
    const dlq = bus.client.createReceiver(Q.max, { subQueueType: 'deadLetter', receiveMode: 'receiveAndDelete' });
    const [d] = await receiveExactly(dlq, 1);
    expect(d?.body).toBe('retry me');
    expect(d?.deadLetterReason).toBe('MaxDeliveryCountExceeded');
  });

  it('peek returns messages in order without locking, including deferred ones', async () => {
    const sender = bus.client.createSender(Q.peek);
    await sender.sendMessages([{ body: 1 }, { body: 2 }, { body: 3 }]);
    const receiver = bus.client.createReceiver(Q.peek);
    const peeked = await receiver.peekMessages(2);
    expect(peeked.map((m) => m.body)).toEqual([1, 2]);
    expect(peeked[0]?.lockToken).toBeUndefined();
    expect((await receiver.peekMessages(5)).map((m) => m.body)).toEqual([3]);
    const got = await receiveExactly(receiver, 3);
    expect(got.map((m) => m.body)).toEqual([1, 2, 3]);
  });

  it('competing receivers each get distinct messages and together get all of them', async () => {
    const total = 60;
    await bus.client.createSender(Q.compete).sendMessages([...Array(total).keys()].map((i) => ({ body: i })));
    const receivers = [bus.client, bus.newClient(), bus.newClient()].map((c) => c.createReceiver(Q.compete));
    const seen: number[] = [];
    // Each receiver holds its first message (locked) until every receiver has one: however the connections' set-up
    // times fall, all three compete, and a broker that ignored link credit would starve the later ones.
    let haveFirst = 0;
    let allHaveFirst!: () => void;
    const started = new Promise<void>((resolve) => (allHaveFirst = resolve));
    const deadline = performance.now() + PATIENCE_MS;
    const perReceiver = await Promise.all(
      receivers.map(async (r) => {
        const [first] = await receiveExactly(r, 1);
        if (++haveFirst === receivers.length) allHaveFirst();
        await started;
        seen.push(first?.body as number);
        await r.completeMessage(first as ServiceBusReceivedMessage);
        let count = 1;
        // Done when all of them are in, not when one receive comes back empty (another receiver may hold the rest).
        while (seen.length < total) {
          if (performance.now() > deadline) throw new Error(`only ${seen.length} of ${total} messages arrived`);
          for (const m of await r.receiveMessages(5, { maxWaitTimeInMs: 100 })) {
            seen.push(m.body as number);
            await r.completeMessage(m);
            count++;
          }
        }
        return count;
      }),
    );
    expect(seen.slice().sort((a, b) => a - b)).toEqual([...Array(total).keys()]);
    expect(perReceiver.filter((c) => c > 0).length).toBeGreaterThan(1);
  });
});
