import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { peekEverything, receiveExactly, until } from '../../../test/support/serviceBusWaits.js';
import { configWith, queue, startBus } from './helpers.js';
import type { TestBus } from './helpers.js';

const Q = {
  ttlDlq: 'ttl-dlq',
  ttlDrop: 'ttl-drop',
  queueTtl: 'ttl-queue',
  fwdIn: 'fwd-in',
  fwdOut: 'fwd-out',
  dlqFwdIn: 'dlqfwd-in',
  dlqFwdOut: 'dlqfwd-out',
  toSessions: 'fwd-to-sessions',
  sessions: 'fwd-sessions',
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
        queue(Q.toSessions, { ForwardTo: Q.sessions }),
        queue(Q.sessions, { RequiresSession: true }),
      ]),
    );
  });
  afterAll(() => bus.close());

  it('dead-letters an expired message with TTLExpiredException when the queue asks for it', async () => {
    await bus.client.createSender(Q.ttlDlq).sendMessages([{ body: 'short', timeToLive: 300 }, { body: 'long' }]);
    // The dead letter appears once the broker's expiry timer ran: waiting for it is waiting for the expiry.
    const dlq = bus.client.createReceiver(Q.ttlDlq, { subQueueType: 'deadLetter', receiveMode: 'receiveAndDelete' });
    const [d] = await receiveExactly(dlq, 1);
    expect(d?.body).toBe('short');
    expect(d?.deadLetterReason).toBe('TTLExpiredException');
    const live = bus.client.createReceiver(Q.ttlDlq, { receiveMode: 'receiveAndDelete' });
    expect((await receiveExactly(live, 1)).map((m) => m.body)).toEqual(['long']);
    expect(await peekEverything(live)).toEqual([]);
  });

  it('drops an expired message when expiry dead-lettering is off', async () => {
    await bus.client.createSender(Q.ttlDrop).sendMessages({ body: 'gone', timeToLive: 200 });
    const r = bus.client.createReceiver(Q.ttlDrop, { receiveMode: 'receiveAndDelete' });
    // The queue holds it until the expiry timer runs; then it is gone, and not to the dead-letter queue.
    await until(async () => (await peekEverything(r)).length === 0, 'the expired message to leave the queue');
    const dlq = bus.client.createReceiver(Q.ttlDrop, { subQueueType: 'deadLetter' });
    expect(await peekEverything(dlq)).toHaveLength(0);
  });

  it('applies the queue DefaultMessageTimeToLive and reports expiresAtUtc', async () => {
    // The broker's clock is `Date`: frozen, the message outlives its 0.5 s however slow the peek; moved past it, the
    // broker's next timer run expires it.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      await bus.client.createSender(Q.queueTtl).sendMessages({ body: 'default ttl' });
      const [peeked] = await peekEverything(bus.client.createReceiver(Q.queueTtl));
      expect(peeked?.body).toBe('default ttl');
      vi.setSystemTime(Date.now() + 700);
      const dlq = bus.client.createReceiver(Q.queueTtl, {
        subQueueType: 'deadLetter',
        receiveMode: 'receiveAndDelete',
      });
      const [d] = await receiveExactly(dlq, 1);
      expect(d?.deadLetterReason).toBe('TTLExpiredException');
    } finally {
      vi.useRealTimers();
    }
  });

  it('forwards every message sent to a ForwardTo queue', async () => {
    await bus.client.createSender(Q.fwdIn).sendMessages([{ body: 1 }, { body: 2 }]);
    expect(await peekEverything(bus.client.createReceiver(Q.fwdIn))).toHaveLength(0);
    const out = bus.client.createReceiver(Q.fwdOut, { receiveMode: 'receiveAndDelete' });
    expect((await receiveExactly(out, 2)).map((m) => m.body)).toEqual([1, 2]);
  });

  it('dead-letters where it came from a message without a session id forwarded to a session queue, and forwards the others', async () => {
    // Act
    await bus.client
      .createSender(Q.toSessions)
      .sendMessages([{ body: 'no session' }, { body: 'in a session', sessionId: 's-1' }]);
    // Assess: no session receiver could ever take the first, so Service Bus dead-letters it in the forwarding queue.
    const dlq = bus.client.createReceiver(Q.toSessions, {
      subQueueType: 'deadLetter',
      receiveMode: 'receiveAndDelete',
    });
    const [d] = await receiveExactly(dlq, 1);
    expect(d).toMatchObject({
      body: 'no session',
      deadLetterReason: 'Session ID is null',
      deadLetterErrorDescription: "Session enabled entity doesn't allow a message whose session identifier is null.",
    });
    const session = await bus.client.acceptSession(Q.sessions, 's-1', { receiveMode: 'receiveAndDelete' });
    expect((await receiveExactly(session, 1)).map((m) => m.body)).toEqual(['in a session']);
    await session.close();
    expect(await peekEverything(bus.client.createReceiver(Q.sessions, { subQueueType: 'deadLetter' }))).toHaveLength(0);
  });

  it('sends dead-lettered messages to ForwardDeadLetteredMessagesTo, naming their DeadLetterSource', async () => {
    await bus.client.createSender(Q.dlqFwdIn).sendMessages({ body: 'bad' });
    const r = bus.client.createReceiver(Q.dlqFwdIn);
    const [m] = await receiveExactly(r, 1);
    await r.deadLetterMessage(m as ServiceBusReceivedMessage, {
      deadLetterReason: 'Nope',
      deadLetterErrorDescription: 'd',
    });
    const out = bus.client.createReceiver(Q.dlqFwdOut, { receiveMode: 'receiveAndDelete' });
    const [f] = await receiveExactly(out, 1);
    expect(f?.body).toBe('bad');
    expect(f?.deadLetterReason).toBe('Nope');
    // Auto-forwarded out of the dead-letter queue: DeadLetterSource names the entity that dead-lettered it.
    expect(f?.deadLetterSource).toBe(Q.dlqFwdIn);
    const ownDlq = bus.client.createReceiver(Q.dlqFwdIn, { subQueueType: 'deadLetter' });
    expect(await peekEverything(ownDlq)).toHaveLength(0);
  });
});
