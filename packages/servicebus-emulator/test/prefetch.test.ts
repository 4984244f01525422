import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import type { Connection, Receiver } from 'rhea';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATIENCE_MS, receiveExactly, until } from '../../../test/support/serviceBusWaits.js';
import { configWith, queue, startBus } from './helpers.js';
import type { TestBus } from './helpers.js';
import { rawConnect } from './rawAmqp.js';

// Lock durations far beyond the hang guard: a message seen again within a test came back because its link died.
const Q = { order: 'prefetch-order', sessions: 'prefetch-sessions', detach: 'prefetch-detach', drop: 'prefetch-drop' };

interface Frame {
  performative: { handle?: number };
}

/**
 * Records, in arrival order, the attach and transfer frames the client connection reads. rhea dispatches each frame
 * to the connection's `on_<performative>`, so wrapping those two sees the wire order before any link logic runs.
 */
function recordFrames(conn: Connection): string[] {
  const order: string[] = [];
  const c = conn as unknown as Record<string, (frame: Frame) => void>;
  for (const name of ['attach', 'transfer']) {
    const original = (c[`on_${name}`] as (frame: Frame) => void).bind(conn);
    c[`on_${name}`] = (frame: Frame) => {
      order.push(name);
      original(frame);
    };
  }
  return order;
}

/** Opens a receiver that sends its attach and its first flow back to back, as the .NET processor does with prefetch. */
function openWithCredit(conn: Connection, source: object, credit: number): Receiver {
  const r = conn.open_receiver({ source, credit_window: 0, autoaccept: false, rcv_settle_mode: 1 } as never);
  r.add_credit(credit);
  return r;
}

describe('receive links with credit granted up front (prefetch)', () => {
  let bus: TestBus;
  beforeAll(async () => {
    bus = await startBus(
      configWith([
        queue(Q.order, { LockDuration: 'PT5M' }),
        queue(Q.sessions, { LockDuration: 'PT5M', RequiresSession: true }),
        queue(Q.detach, { LockDuration: 'PT5M' }),
        queue(Q.drop, { LockDuration: 'PT5M' }),
      ]),
    );
  });
  afterAll(() => bus.close());

  it('answers the attach before the first transfer when attach and flow arrive together', async () => {
    // Prepare: messages waiting, so the flow finds something to deliver at once.
    await bus.client.createSender(Q.order).sendMessages([1, 2, 3].map((n) => ({ body: n })));
    const conn = await rawConnect(bus.emulator.port);
    const frames = recordFrames(conn);
    const errors: unknown[] = [];
    conn.on('error', (e) => errors.push(e));
    conn.on('connection_error', (ctx) => errors.push(ctx.connection.error));

    // Act
    const r = openWithCredit(conn, { address: Q.order }, 10);
    let got = 0;
    r.on('message', () => got++);
    await until(() => got === 3 || errors.length > 0 || !conn.is_open(), 'three prefetched messages');

    // Assess
    expect(errors).toEqual([]);
    expect(frames).toEqual(['attach', 'transfer', 'transfer', 'transfer']);
    conn.close();
  });

  it('answers a session attach before the first transfer too', async () => {
    await bus.client.createSender(Q.sessions).sendMessages([1, 2].map((n) => ({ body: n, sessionId: 's-1' })));
    const conn = await rawConnect(bus.emulator.port);
    const frames = recordFrames(conn);
    const r = openWithCredit(conn, { address: Q.sessions, filter: { 'com.microsoft:session-filter': 's-1' } }, 10);
    let got = 0;
    r.on('message', () => got++);
    await until(() => got === 2 || !conn.is_open(), 'two session messages');
    expect(frames).toEqual(['attach', 'transfer', 'transfer']);
    conn.close();
  });

  it('makes the unsettled messages of a detached link available again, counting the delivery', async () => {
    // Prepare: a raw link prefetches both messages and never settles them.
    await bus.client.createSender(Q.detach).sendMessages([{ body: 'a' }, { body: 'b' }]);
    const conn = await rawConnect(bus.emulator.port);
    const r = openWithCredit(conn, { address: Q.detach }, 10);
    let got = 0;
    r.on('message', () => got++);
    await until(() => got === 2, 'two prefetched messages');

    // Act: the link detaches with both still locked (the lock lasts 5 minutes).
    r.close();
    const receiver = bus.client.createReceiver(Q.detach);
    const again = await receiveExactly(receiver, 2, 'messages released by the detach');

    // Assess
    expect(again.map((m) => [m.body, m.deliveryCount])).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
    for (const m of again) await receiver.completeMessage(m as ServiceBusReceivedMessage);
    conn.close();
  });

  it('makes them available again when the connection drops', async () => {
    await bus.client.createSender(Q.drop).sendMessages({ body: 'c' });
    const conn = await rawConnect(bus.emulator.port);
    const r = openWithCredit(conn, { address: Q.drop }, 10);
    let got = 0;
    r.on('message', () => got++);
    await until(() => got === 1, 'one prefetched message');
    (conn as unknown as { socket: { destroy(): void } }).socket.destroy();
    const receiver = bus.client.createReceiver(Q.drop);
    const [m] = await receiver.receiveMessages(1, { maxWaitTimeInMs: PATIENCE_MS });
    expect([m?.body, m?.deliveryCount]).toEqual(['c', 1]);
    await receiver.completeMessage(m as ServiceBusReceivedMessage);
  });
});
