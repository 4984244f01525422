import type { ServiceBusSessionReceiver } from '@azure/service-bus';
import type { Receiver } from 'rhea';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATIENCE_MS } from '../../../test/support/serviceBusWaits.js';
import { configWith, queue, sleep, startBus } from './helpers.js';
import type { TestBus } from './helpers.js';
import { rawConnect } from './rawAmqp.js';

const Q = { raw: 'drain-raw', idle: 'drain-idle', race: 'drain-race' };

/** The next `receiver_drained`, with the flow state it left; `undefined` if the broker never answers. */
function drained(r: Receiver): Promise<{ credit: number; deliveryCount: number } | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), PATIENCE_MS);
    r.once('receiver_drained', () => {
      clearTimeout(timer);
      const state = r as unknown as { credit: number; delivery_count: number };
      resolve({ credit: state.credit, deliveryCount: state.delivery_count });
    });
  });
}

/** What the SDK keeps of a session receiver's link (internal, SDK 7.9). */
interface SdkSessionInternals {
  _messageSession: {
    _batchingReceiverLite: { _drainTimeoutInMs: number };
    link: { drainCredit(): void; on(event: 'receiver_drained', listener: () => void): unknown };
  };
}

/**
 * Counts the drains the SDK asks for on `receiver`'s link and the broker's answers to them. The SDK closes the link
 * when an answer takes longer than its own 200 ms timer, which a loaded machine can outlast with a correct broker;
 * that timer is the SDK's testing hook, so it is set to the hang guard here and the broker is judged by its answers.
 */
function watchDrains(receiver: ServiceBusSessionReceiver): { requested: number; answered: number } {
  const session = (receiver as unknown as SdkSessionInternals)._messageSession;
  session._batchingReceiverLite._drainTimeoutInMs = PATIENCE_MS;
  const counts = { requested: 0, answered: 0 };
  const { link } = session;
  const drainCredit = link.drainCredit.bind(link);
  link.drainCredit = () => {
    counts.requested++;
    drainCredit();
  };
  link.on('receiver_drained', () => counts.answered++);
  return counts;
}

describe('drain on a receive link (raw AMQP)', () => {
  let bus: TestBus;
  beforeAll(async () => {
    // The race's session lock outlasts the whole test however slow the machine: only a lost link may end it.
    bus = await startBus(
      configWith([queue(Q.raw), queue(Q.idle), queue(Q.race, { RequiresSession: true, LockDuration: 'PT5M' })]),
    );
  });
  afterAll(() => bus.close());

  it('answers a drain that arrives after the credit was used up, with drain=true', async () => {
    // Prepare: credit 1, one message delivered, so the broker's link credit is 0.
    const conn = await rawConnect(bus.emulator.port);
    try {
      const r = conn.open_receiver({ source: { address: Q.raw }, credit_window: 0, autoaccept: false } as never);
      await new Promise<void>((resolve) => r.once('receiver_open', () => resolve()));
      const first = new Promise<void>((resolve) => r.once('message', () => resolve()));
      r.add_credit(1);
      await bus.client.createSender(Q.raw).sendMessages({ body: 'only' });
      await first;

      // Act: the client drains at credit 0, as the SDK does when a delivery crosses its drain request.
      const answer = drained(r);
      r.drain_credit();

      // Assess: a flow with drain=true comes back, credit consumed and the delivery count unchanged.
      expect(await answer).toEqual({ credit: 0, deliveryCount: 1 });
    } finally {
      conn.close();
    }
  });

  it('answers a drain with credit left and nothing to send by consuming the credit', async () => {
    const conn = await rawConnect(bus.emulator.port);
    try {
      const r = conn.open_receiver({ source: { address: Q.idle }, credit_window: 0, autoaccept: false } as never);
      await new Promise<void>((resolve) => r.once('receiver_open', () => resolve()));
      r.add_credit(5);
      // rhea writes a link's pending flow on the next tick: after one turn of the event loop the credit is on the
      // wire in a frame of its own, so the broker holds credit 5 when the drain arrives.
      await new Promise((resolve) => setImmediate(resolve));
      const answer = drained(r);
      r.drain_credit();
      expect(await answer).toEqual({ credit: 0, deliveryCount: 5 });
    } finally {
      conn.close();
    }
  });

  it(
    'a session receiver polling with short waits while messages trickle in keeps its session',
    async () => {
      // Prepare: a session receiver; an unanswered drain makes the SDK close its link, losing the session lock.
      const total = 150;
      const sessionId = 'S';
      const receiver = await bus.client.acceptSession(Q.race, sessionId, { maxAutoLockRenewalDurationInMs: 0 });
      const drains = watchDrains(receiver);
      const sender = bus.client.createSender(Q.race);

      // Act: messages arrive one by one at about the pace the receiver's waits expire, so deliveries cross drains.
      const sending = (async () => {
        for (let i = 0; i < total; i++) {
          await sender.sendMessages({ body: i, sessionId });
          await sleep(i % 3);
        }
      })();
      const bodies: unknown[] = [];
      const redelivered: unknown[] = [];
      let failure: unknown;
      // A hang guard only: the loop ends when every message is in.
      const deadline = Date.now() + 2 * PATIENCE_MS;
      try {
        while (bodies.length < total && Date.now() < deadline) {
          for (const m of await receiver.receiveMessages(1, { maxWaitTimeInMs: 1 + (bodies.length % 4) })) {
            if (m.deliveryCount !== 0) redelivered.push(m.body);
            await receiver.completeMessage(m);
            bodies.push(m.body);
          }
        }
        // One more look at the empty session: its wait expires with the credit unused, so at least one drain is sure.
        expect(await receiver.receiveMessages(1, { maxWaitTimeInMs: 1 })).toEqual([]);
      } catch (err) {
        failure = err;
      }
      await sending;
      await receiver.close();

      // Assess: every message once, in order, on the one receiver, which never lost its session; every drain answered.
      expect(failure).toBeUndefined();
      expect(redelivered).toEqual([]);
      expect(bodies).toEqual([...Array(total).keys()]);
      expect(drains.requested).toBeGreaterThan(0);
      expect(drains.answered).toBe(drains.requested);
    },
    4 * PATIENCE_MS,
  );
});
