import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith, queue, sleep, startBus } from './helpers.js';
import type { TestBus } from './helpers.js';

const Q = {
  ttlDlq: 'ttl-dlq', ttlDrop: 'ttl-drop', queueTtl: 'ttl-queue', fwdIn: 'fwd-in', fwdOut: 'fwd-out',
  dlqFwdIn: 'dlqfwd-in', dlqFwdOut: 'dlqfwd-out',
};

describe('time to live and forwarding', () => {
  let bus: TestBus;
  beforeAll(async () => {
    bus = await startBus(
      configWith([
        queue(Q.ttlDlq, { DeadLetteringOnMessageExpiration: true }),
        queue(Q.ttlDrop, { DeadLetteringOnMessageExpiration: false }),
        queue(Q.queueTtl, { DeadLetteringOnMessageExpiration: true, DefaultMessageTimeToLive: 'PT0.5S' }),
        queue(Q.fwdIn, { ForwardTo: Q.fwdOut }),
        queue(Q.fwdOut),
        queue(Q.dlqFwdIn, { ForwardDeadLetteredMessagesTo: Q.dlqFwdOut }),
        queue(Q.dlqFwdOut),
      ]),
    );
  });
  afterAll(() => bus.close());

  it('dead-letters an expired message with TTLExpiredException when the queue asks for it', async () => {
    await bus.client.createSender(Q.ttlDlq).sendMessages([{ body: 'short', timeToLive: 300 }, { body: 'long' }]);
    await sleep(500);
    const dlq = bus.client.createReceiver(Q.ttlDlq, { subQueueType: 'deadLetter', receiveMode: 'receiveAndDelete' });
    const [d] = await dlq.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    expect(d?.body).toBe('short');
    expect(d?.deadLetterReason).toBe('TTLExpiredException');
    const live = bus.client.createReceiver(Q.ttlDlq, { receiveMode: 'receiveAndDelete' });
    expect((await live.receiveMessages(5, { maxWaitTimeInMs: 500 })).map((m) => m.body)).toEqual(['long']);
  });

  it('drops an expired message when expiry dead-lettering is off', async () => {
    await bus.client.createSender(Q.ttlDrop).sendMessages({ body: 'gone', timeToLive: 200 });
    await sleep(400);
    const r = bus.client.createReceiver(Q.ttlDrop, { receiveMode: 'receiveAndDelete' });
    expect(await r.receiveMessages(1, { maxWaitTimeInMs: 300 })).toHaveLength(0);
    const dlq = bus.client.createReceiver(Q.ttlDrop, { subQueueType: 'deadLetter' });
    expect(await dlq.peekMessages(5)).toHaveLength(0);
  });

  it('applies the queue DefaultMessageTimeToLive and reports expiresAtUtc', async () => {
    await bus.client.createSender(Q.queueTtl).sendMessages({ body: 'default ttl' });
    const [peeked] = await bus.client.createReceiver(Q.queueTtl).peekMessages(1);
    expect(peeked?.body).toBe('default ttl');
    await sleep(700);
    const dlq = bus.client.createReceiver(Q.queueTtl, { subQueueType: 'deadLetter', receiveMode: 'receiveAndDelete' });
    const [d] = await dlq.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    expect(d?.deadLetterReason).toBe('TTLExpiredException');
  });

  it('forwards every message sent to a ForwardTo queue', async () => {
    await bus.client.createSender(Q.fwdIn).sendMessages([{ body: 1 }, { body: 2 }]);
    expect(await bus.client.createReceiver(Q.fwdIn).peekMessages(5)).toHaveLength(0);
    const out = bus.client.createReceiver(Q.fwdOut, { receiveMode: 'receiveAndDelete' });
    expect((await out.receiveMessages(2, { maxWaitTimeInMs: 2000 })).map((m) => m.body)).toEqual([1, 2]);
  });

  it('sends dead-lettered messages to ForwardDeadLetteredMessagesTo', async () => {
    await bus.client.createSender(Q.dlqFwdIn).sendMessages({ body: 'bad' });
    const r = bus.client.createReceiver(Q.dlqFwdIn);
    const [m] = await r.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    await r.deadLetterMessage(m as ServiceBusReceivedMessage, { deadLetterReason: 'Nope', deadLetterErrorDescription: 'd' });
    const out = bus.client.createReceiver(Q.dlqFwdOut, { receiveMode: 'receiveAndDelete' });
    const [f] = await out.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    expect(f?.body).toBe('bad');
    expect(f?.deadLetterReason).toBe('Nope');
    const ownDlq = bus.client.createReceiver(Q.dlqFwdIn, { subQueueType: 'deadLetter' });
    expect(await ownDlq.peekMessages(5)).toHaveLength(0);
  });
});
