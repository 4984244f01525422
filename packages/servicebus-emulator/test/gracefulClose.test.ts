import { ServiceBusClient } from '@azure/service-bus';
import type { Connection, Message, Receiver, Session } from 'rhea';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATIENCE_MS, receiveExactly, until } from '../../../test/support/serviceBusWaits.js';
import { configWith, queue, startBus } from './helpers.js';
import type { TestBus } from './helpers.js';
import { rawConnect } from './rawAmqp.js';

// A long lock: a leaked attach or lock would hold the session far longer than any wait below, so every take-over
// of a session that was not given back fails (SessionCannotBeLocked, or a ServiceTimeout of the SDK, whose operation
// timeout is the hang guard and stays under the lock) instead of merely taking long.
const Q = {
  pending: 'close-pending',
  holder: 'close-holder',
  locks: 'close-locks',
  raw: 'close-raw',
  rawEnd: 'close-raw-end',
};
const noRenew = { maxAutoLockRenewalDurationInMs: 0 };
const LOCK = 'PT20S';

/** A client on its own AMQP connection that the test closes itself. */
function client(bus: TestBus): ServiceBusClient {
  return new ServiceBusClient(bus.emulator.connectionString, {
    retryOptions: { maxRetries: 0, timeoutInMs: PATIENCE_MS },
  });
}

/** The "next session" requests the broker holds for `queueName`. */
function heldAccepts(bus: TestBus, queueName: string): number {
  return bus.emulator.broker.queueFor(queueName).sessions?.waiting ?? 0;
}

/** Who holds each session of `queueName`, as the broker sees it, sorted by session. */
function holders(bus: TestBus, queueName: string): [string, string | undefined][] {
  const sessions = bus.emulator.broker.stats().find((e) => e.name === queueName)?.sessions ?? [];
  return sessions.map((s): [string, string | undefined] => [s.id, s.holder]).sort();
}

describe('a client closing its connection gracefully', () => {
  let bus: TestBus;
  beforeAll(async () => {
    bus = await startBus(
      configWith([
        queue(Q.pending, { RequiresSession: true, LockDuration: LOCK }),
        queue(Q.holder, { RequiresSession: true, LockDuration: LOCK }),
        queue(Q.locks, { RequiresSession: true, LockDuration: LOCK }),
      ]),
    );
  });
  afterAll(() => bus.close());

  it('drops its held acceptNextSession, so the next session goes to a live receiver at once', async () => {
    // Prepare: a "next session" request held by the emulator (no sessions yet), then its client closes.
    const leaving = client(bus);
    // The SDK never settles an accept that is pending when its client closes, so it is not awaited.
    void leaving.acceptNextSession(Q.pending, noRenew).catch(() => undefined);
    await until(() => heldAccepts(bus, Q.pending) === 1, 'the broker to hold the accept');
    await leaving.close();
    expect(heldAccepts(bus, Q.pending)).toBe(0);

    // Act: a session gets a message; a second client asks for the next session.
    await bus.client.createSender(Q.pending).sendMessages({ body: 'first', sessionId: 'P' });
    const other = client(bus);
    try {
      const r = await other.acceptNextSession(Q.pending, noRenew);
      const [m] = await receiveExactly(r, 1);

      // Assess: the closed client's request was dropped, so the session went to the live receiver, not locked away.
      expect(r.sessionId).toBe('P');
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
    const [first] = await receiveExactly(held, 1);
    expect(first?.body).toBe(1);

    // Act: the holder's client closes; another client takes the same session.
    await leaving.close();
    const other = client(bus);
    try {
      const r = await other.acceptSession(Q.holder, 'H', noRenew);
      const got = await receiveExactly(r, 2);

      // Assess: no SessionCannotBeLocked (a lock that was not given back lasts far longer than this test); both
      // messages, in order, the unsettled one on its second delivery.
      expect(got.map((m) => [m.body, m.deliveryCount])).toEqual([
        [1, 1],
        [2, 0],
      ]);
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
    await until(() => heldAccepts(bus, Q.locks) === 3, 'the broker to hold all three accepts');
    await Promise.all(leaving.map((c) => c.close()));
    expect(heldAccepts(bus, Q.locks)).toBe(0);

    // Act: messages for two sessions arrive (the broker hands a session to a held request as it enqueues, so by the
    // time the send is acknowledged any hand-over has happened).
    await bus.client.createSender(Q.locks).sendMessages([
      { body: 'a', sessionId: 'A' },
      { body: 'b', sessionId: 'B' },
    ]);

    // Assess: nobody holds either session.
    expect(holders(bus, Q.locks)).toEqual([
      ['A', undefined],
      ['B', undefined],
    ]);
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
    bus = await startBus(
      configWith([
        queue(Q.raw, { RequiresSession: true, LockDuration: LOCK }),
        queue(Q.rawEnd, { RequiresSession: true, LockDuration: LOCK }),
      ]),
    );
  });
  afterAll(() => bus.close());

  /**
   * Accepts `sessionId` with the SDK and returns the bodies and delivery counts of `count` messages it then receives.
   * A session or message still locked by the released link fails this (SessionCannotBeLocked, or no message).
   */
  async function takeOver(sessionId: string, address: string, count: number): Promise<unknown[][]> {
    const other = client(bus);
    try {
      const r = await other.acceptSession(address, sessionId, noRenew);
      const got = await receiveExactly(r, count);
      for (const m of got) await r.completeMessage(m);
      await r.close();
      return got.map((m) => [m.body, m.deliveryCount]);
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

    // Assess: the SDK takes the session and gets the message again (second delivery).
    expect(await takeOver('R', Q.raw, 1)).toEqual([['r1', 1]]);
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
      await until(() => heldAccepts(bus, Q.rawEnd) === 1, 'the broker to hold the next-session attach');

      // Act: the session ends (the connection stays open; the broker's end answers it); a message arrives for another session.
      await new Promise<void>((resolve) => {
        ssn.once('session_close', () => resolve());
        ssn.close();
      });
      await bus.client.createSender(Q.rawEnd).sendMessages({ body: 'f1', sessionId: 'F' });

      // Assess: F was not handed to the dropped request, and E is free with its message.
      expect(heldAccepts(bus, Q.rawEnd)).toBe(0);
      expect(await takeOver('F', Q.rawEnd, 1)).toEqual([['f1', 0]]);
      expect(await takeOver('E', Q.rawEnd, 1)).toEqual([['e1', 1]]);
    } finally {
      conn.close();
    }
  });
});
