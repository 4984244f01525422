import { ServiceBusClient } from '@azure/service-bus';
import type { Connection, Message, Receiver, Session } from 'rhea';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith, queue, sleep, startBus } from './helpers.js';
import type { TestBus } from './helpers.js';
import { rawConnect } from './rawAmqp.js';

// A long lock: a leaked attach or lock would hold the session far longer than any assertion below waits.
const Q = { pending: 'close-pending', holder: 'close-holder', locks: 'close-locks', raw: 'close-raw', rawEnd: 'close-raw-end' };
const noRenew = { maxAutoLockRenewalDurationInMs: 0 };
const LOCK_MS = 20_000;

/** A client on its own AMQP connection that the test closes itself. */
function client(bus: TestBus, timeoutInMs = 10_000): ServiceBusClient {
  return new ServiceBusClient(bus.emulator.connectionString, { retryOptions: { maxRetries: 0, timeoutInMs } });
}

describe('a client closing its connection gracefully', () => {
  let bus: TestBus;
  beforeAll(async () => {
    bus = await startBus(configWith([
      queue(Q.pending, { RequiresSession: true, LockDuration: 'PT20S' }),
      queue(Q.holder, { RequiresSession: true, LockDuration: 'PT20S' }),
      queue(Q.locks, { RequiresSession: true, LockDuration: 'PT20S' }),
    ]));
  });
  afterAll(() => bus.close());

  it('drops its held acceptNextSession, so the next session goes to a live receiver at once', async () => {
    // Prepare: a "next session" request held by the emulator (no sessions yet), then its client closes.
    const leaving = client(bus);
    // The SDK never settles an accept that is pending when its client closes, so it is not awaited.
    void leaving.acceptNextSession(Q.pending, noRenew).catch(() => undefined);
    await sleep(300);
    await leaving.close();

    // Act: a session gets a message; a second client asks for the next session.
    await bus.client.createSender(Q.pending).sendMessages({ body: 'first', sessionId: 'P' });
    const t0 = Date.now();
    const other = client(bus, 3_000);
    try {
      const r = await other.acceptNextSession(Q.pending, noRenew);
      const waited = Date.now() - t0;
      const [m] = await r.receiveMessages(1, { maxWaitTimeInMs: 2_000 });

      // Assess: the session was free immediately, not after the lock duration.
      expect(r.sessionId).toBe('P');
      expect(waited).toBeLessThan(2_000);
      expect(m?.body).toBe('first');
      await r.completeMessage(m as never);
      await r.close();
    } finally {
      await other.close();
    }
  });

  // The SDK detaches its receivers before closing the connection, so this guards the detach path.
  it('frees a session whose holder closes its client, with unsettled messages back in order', async () => {
    // Prepare: a receiver holds session H with one message locked and unsettled.
    await bus.client.createSender(Q.holder).sendMessages([1, 2].map((n) => ({ body: n, sessionId: 'H' })));
    const leaving = client(bus);
    const held = await leaving.acceptSession(Q.holder, 'H', noRenew);
    const [first] = await held.receiveMessages(1, { maxWaitTimeInMs: 2_000 });
    expect(first?.body).toBe(1);

    // Act: the holder's client closes; another client takes the same session.
    await leaving.close();
    const other = client(bus, 3_000);
    try {
      const t0 = Date.now();
      const r = await other.acceptSession(Q.holder, 'H', noRenew);
      const got = await r.receiveMessages(2, { maxWaitTimeInMs: 2_000 });

      // Assess: no SessionCannotBeLocked, no wait for the lock to lapse; both messages, in order.
      expect(Date.now() - t0).toBeLessThan(LOCK_MS / 4);
      expect(got.map((m) => [m.body, m.deliveryCount])).toEqual([[1, 1], [2, 0]]);
      for (const m of got) await r.completeMessage(m);
      await r.close();
    } finally {
      await other.close();
    }
  });

  it('keeps the broker from handing sessions to receivers of closed connections (stats show no holder)', async () => {
    // Prepare: several held attaches from clients that all close before any session exists.
    const leaving = [client(bus), client(bus), client(bus)];
    for (const c of leaving) void c.acceptNextSession(Q.locks, noRenew).catch(() => undefined);
    await sleep(300);
    await Promise.all(leaving.map((c) => c.close()));

    // Act: messages for two sessions arrive.
    await bus.client.createSender(Q.locks).sendMessages([{ body: 'a', sessionId: 'A' }, { body: 'b', sessionId: 'B' }]);
    await sleep(100);

    // Assess: nobody holds either session.
    const sessions = bus.emulator.broker.stats().find((e) => e.name === Q.locks)?.sessions ?? [];
    expect(sessions.map((s) => [s.id, s.holder]).sort()).toEqual([['A', undefined], ['B', undefined]]);
  });
});

/** A session receiver on a plain rhea session (the SDK always detaches its links before closing). */
function sessionReceiver(ssn: Session, address: string, sessionId: string | null): Receiver {
  return ssn.open_receiver({
    source: { address, filter: { 'com.microsoft:session-filter': sessionId } },
    autoaccept: false,
    credit_window: 10,
  } as never);
}

/** The first message a receiver gets (left unsettled, so it stays locked). */
function firstMessage(r: Receiver): Promise<Message> {
  return new Promise((resolve) => r.once('message', (ctx) => resolve(ctx.message as Message)));
}

describe('links released without their own detach', () => {
  let bus: TestBus;
  beforeAll(async () => {
    bus = await startBus(configWith([
      queue(Q.raw, { RequiresSession: true, LockDuration: 'PT20S' }),
      queue(Q.rawEnd, { RequiresSession: true, LockDuration: 'PT20S' }),
    ]));
  });
  afterAll(() => bus.close());

  /** Accepts `sessionId` with the SDK and returns the bodies and delivery counts of `count` messages it then receives. */
  async function takeOver(sessionId: string, address: string, count: number): Promise<{ ms: number; got: unknown[][] }> {
    const other = client(bus, 3_000);
    try {
      const t0 = Date.now();
      const r = await other.acceptSession(address, sessionId, noRenew);
      const ms = Date.now() - t0;
      const got = await r.receiveMessages(count, { maxWaitTimeInMs: 1_000 });
      for (const m of got) await r.completeMessage(m);
      await r.close();
      return { ms, got: got.map((m) => [m.body, m.deliveryCount]) };
    } finally {
      await other.close();
    }
  }

  it('a close frame with links still attached gives the held session and its locked message back', async () => {
    // Prepare: a raw connection holds session R with one message locked.
    await bus.client.createSender(Q.raw).sendMessages({ body: 'r1', sessionId: 'R' });
    const conn: Connection = await rawConnect(bus.emulator.port);
    const ssn = conn.create_session();
    ssn.begin();
    await firstMessage(sessionReceiver(ssn, Q.raw, 'R'));

    // Act: the connection closes gracefully without detaching its link.
    await new Promise<void>((resolve) => {
      conn.once('connection_close', () => resolve());
      conn.close();
    });

    // Assess: the SDK takes the session at once and gets the message again (second delivery).
    const { ms, got } = await takeOver('R', Q.raw, 1);
    expect(ms).toBeLessThan(LOCK_MS / 4);
    expect(got).toEqual([['r1', 1]]);
  });

  it('an AMQP session that ends drops its held next-session attach and gives back a held session', async () => {
    // Prepare: on one raw session, a held "next session" request (queue empty) and a holder of session E.
    await bus.client.createSender(Q.rawEnd).sendMessages({ body: 'e1', sessionId: 'E' });
    const conn = await rawConnect(bus.emulator.port);
    try {
      const ssn = conn.create_session();
      ssn.begin();
      await firstMessage(sessionReceiver(ssn, Q.rawEnd, 'E'));
      sessionReceiver(ssn, Q.rawEnd, null);
      await sleep(200);

      // Act: the session ends (the connection stays open); a message arrives for another session.
      ssn.close();
      await sleep(200);
      await bus.client.createSender(Q.rawEnd).sendMessages({ body: 'f1', sessionId: 'F' });

      // Assess: F was not handed to the dropped request, and E is free with its message.
      expect((await takeOver('F', Q.rawEnd, 1)).got).toEqual([['f1', 0]]);
      const e = await takeOver('E', Q.rawEnd, 1);
      expect(e.ms).toBeLessThan(LOCK_MS / 4);
      expect(e.got).toEqual([['e1', 1]]);
    } finally {
      conn.close();
    }
  });
});
