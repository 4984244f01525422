import { ServiceBusClient, isServiceBusError } from '@azure/service-bus';
import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { PATIENCE_MS, peekEverything, receiveExactly, until } from '../../../test/support/serviceBusWaits.js';
import { configWith, queue, startBus } from './helpers.js';
import type { TestBus } from './helpers.js';

const Q = {
  basic: 'sess-basic',
  locked: 'sess-locked',
  next: 'sess-next',
  held: 'sess-held',
  expiry: 'sess-expiry',
  fifo: 'sess-fifo',
  many: 'sess-many',
  deferred: 'sess-deferred',
};
const noRenew = { maxAutoLockRenewalDurationInMs: 0 };

/** A client whose operations may take as long as the hang guard (the shared one's give up after 5 s). */
function patientClient(bus: TestBus): ServiceBusClient {
  return new ServiceBusClient(bus.emulator.connectionString, {
    retryOptions: { maxRetries: 0, timeoutInMs: PATIENCE_MS },
  });
}

describe('sessions with the real SDK', () => {
  let bus: TestBus;
  beforeAll(async () => {
    bus = await startBus(
      configWith([
        queue(Q.basic, { RequiresSession: true }),
        queue(Q.locked, { RequiresSession: true }),
        queue(Q.next, { RequiresSession: true }),
        queue(Q.held, { RequiresSession: true }),
        queue(Q.expiry, { RequiresSession: true, LockDuration: 'PT1S' }),
        queue(Q.fifo, { RequiresSession: true }),
        queue(Q.many, { RequiresSession: true }),
        queue(Q.deferred, { RequiresSession: true }),
      ]),
    );
  });
  afterAll(() => bus.close());
  afterEach(() => {
    vi.useRealTimers();
  });

  it('acceptSession receives that session in order, keeps state and renews its lock', async () => {
    // The broker's clock (`Date`) frozen: the 5 s lock cannot run out mid-test, and the renewal is moved on by hand.
    vi.useFakeTimers({ toFake: ['Date'] });
    await bus.client.createSender(Q.basic).sendMessages([
      { body: 1, sessionId: 'A' },
      { body: 'other', sessionId: 'B' },
      { body: 2, sessionId: 'A' },
      { body: 3, sessionId: 'A' },
    ]);
    const r = await bus.client.acceptSession(Q.basic, 'A', noRenew);
    expect(r.sessionId).toBe('A');
    expect(r.sessionLockedUntilUtc.getTime()).toBeGreaterThan(Date.now());
    const got = await receiveExactly(r, 3);
    expect(got.map((m) => [m.body, m.sessionId])).toEqual([
      [1, 'A'],
      [2, 'A'],
      [3, 'A'],
    ]);
    for (const m of got) await r.completeMessage(m);
    expect(await r.getSessionState()).toBeNull();
    await r.setSessionState({ step: 3 });
    expect(await r.getSessionState()).toEqual({ step: 3 });
    const before = r.sessionLockedUntilUtc.getTime();
    vi.setSystemTime(Date.now() + 20);
    await r.renewSessionLock();
    expect(r.sessionLockedUntilUtc.getTime()).toBeGreaterThan(before);
    await r.close();
    // State outlives the receiver.
    const again = await bus.client.acceptSession(Q.basic, 'A');
    expect(await again.getSessionState()).toEqual({ step: 3 });
    await again.close();
  });

  it('fails with SessionCannotBeLocked while another receiver holds the session', async () => {
    await bus.client.createSender(Q.locked).sendMessages({ body: 1, sessionId: 'S' });
    const holder = await bus.client.acceptSession(Q.locked, 'S', noRenew);
    const err = await bus
      .newClient()
      .acceptSession(Q.locked, 'S')
      .catch((e: unknown) => e);
    expect(isServiceBusError(err) && err.code).toBe('SessionCannotBeLocked');
    await holder.close();
    const next = await bus.newClient().acceptSession(Q.locked, 'S');
    expect((await receiveExactly(next, 1))[0]?.body).toBe(1);
    await next.close();
  });

  it('acceptNextSession gives competing receivers different sessions', async () => {
    await bus.client.createSender(Q.next).sendMessages([
      { body: 1, sessionId: 'x' },
      { body: 2, sessionId: 'y' },
    ]);
    const a = await bus.client.acceptNextSession(Q.next, noRenew);
    const b = await bus.newClient().acceptNextSession(Q.next, noRenew);
    expect([a.sessionId, b.sessionId].sort()).toEqual(['x', 'y']);
    await Promise.all([a.close(), b.close()]);
  });

  it('holds acceptNextSession until a session has a message, and times out with ServiceTimeout', async () => {
    // Prepare: a patient client for the held attach, and one whose operation timeout (1 s) bounds the second one.
    const patient = patientClient(bus);
    const quick = new ServiceBusClient(bus.emulator.connectionString, {
      retryOptions: { maxRetries: 0, timeoutInMs: 1000 },
    });
    try {
      // Act: nothing there yet; a message arrives once the broker holds the attach.
      const pending = patient.acceptNextSession(Q.held, noRenew);
      await until(
        () => (bus.emulator.broker.queueFor(Q.held).sessions?.waiting ?? 0) === 1,
        'the broker to hold the attach',
      );
      await bus.client.createSender(Q.held).sendMessages({ body: 'late', sessionId: 'L' });
      const r = await pending;
      expect(r.sessionId).toBe('L');
      const t0 = Date.now();
      const err = await quick.acceptNextSession(Q.held).catch((e: unknown) => e);
      // Assess: held for the whole timeout (a lower bound, true however slow the machine), then ServiceTimeout.
      expect(isServiceBusError(err) && err.code).toBe('ServiceTimeout');
      expect(Date.now() - t0).toBeGreaterThanOrEqual(800);
      await r.close();
    } finally {
      await Promise.all([patient.close(), quick.close()]);
    }
  });

  it('an expired session lock ends the holder with SessionLockLost and hands its messages back in order', async () => {
    // The 1 s lock runs on the broker's clock (`Date`): frozen while the holder receives, however slow that is, then
    // moved past the lock; the broker's next timer run ends the holder.
    vi.useFakeTimers({ toFake: ['Date'] });
    await bus.client.createSender(Q.expiry).sendMessages([1, 2, 3].map((n) => ({ body: n, sessionId: 'E' })));
    const first = await bus.client.acceptSession(Q.expiry, 'E', noRenew);
    const got = await receiveExactly(first, 2);
    expect(got.map((m) => m.body)).toEqual([1, 2]);
    vi.setSystemTime(Date.now() + 1_300);
    // The expiry timer ends the holder's link (the stats hide a lapsed lock at once, so the SDK's own view is awaited).
    await until(() => first.isClosed, "the broker's expiry timer to end the holder");
    const err = await first.completeMessage(got[0] as ServiceBusReceivedMessage).catch((e: unknown) => e);
    expect(isServiceBusError(err) && err.code).toBe('SessionLockLost');
    const second = await bus.newClient().acceptSession(Q.expiry, 'E', noRenew);
    const again = await receiveExactly(second, 3);
    expect(again.map((m) => [m.body, m.deliveryCount])).toEqual([
      [1, 1],
      [2, 1],
      [3, 0],
    ]);
    for (const m of again) await second.completeMessage(m);
    await second.close();
  });

  it('keeps strict FIFO within a session across abandon', async () => {
    await bus.client.createSender(Q.fifo).sendMessages([1, 2, 3].map((n) => ({ body: n, sessionId: 'F' })));
    const r = await bus.client.acceptSession(Q.fifo, 'F', noRenew);
    const [m1] = await receiveExactly(r, 1);
    await r.abandonMessage(m1 as ServiceBusReceivedMessage);
    const order: unknown[] = [];
    while (order.length < 3) {
      const [m] = await receiveExactly(r, 1);
      order.push(m?.body);
      await r.completeMessage(m as ServiceBusReceivedMessage);
    }
    expect(order).toEqual([1, 2, 3]);
    await r.close();
  });

  it('defers within a session and receives the deferred message by sequence number', async () => {
    await bus.client.createSender(Q.deferred).sendMessages([
      { body: 'd', sessionId: 'D' },
      { body: 'n', sessionId: 'D' },
    ]);
    const r = await bus.client.acceptSession(Q.deferred, 'D', noRenew);
    const [d] = await receiveExactly(r, 1);
    await r.deferMessage(d as ServiceBusReceivedMessage);
    const [deferred] = await r.receiveDeferredMessages(d?.sequenceNumber as never);
    expect(deferred?.body).toBe('d');
    await r.completeMessage(deferred as ServiceBusReceivedMessage);
    const [n] = await receiveExactly(r, 1);
    expect(n?.body).toBe('n');
    await r.completeMessage(n as ServiceBusReceivedMessage);
    await r.close();
  });

  it('drains many sessions with several receivers, each session strictly in order', async () => {
    const sessions = 8;
    const perSession = 10;
    const msgs = [];
    for (let i = 0; i < perSession; i++) for (let s = 0; s < sessions; s++) msgs.push({ body: i, sessionId: `s${s}` });
    await bus.client.createSender(Q.many).sendMessages(msgs);
    const seen = new Map<string, number[]>();
    // Each worker claims one of the sessions before it asks the broker for one, so every accept finds a session with
    // messages (no waiting on a timeout to learn that the work is done), and all four start with one of their own.
    let claimed = 0;
    const worker = async (client: ServiceBusClient): Promise<number> => {
      let handled = 0;
      while (claimed < sessions) {
        claimed++;
        const r = await client.acceptNextSession(Q.many, noRenew);
        // A session is done when the broker shows it empty, not when a receive comes back empty.
        for (let left = await peekEverything(r, 4); left.length > 0; left = await peekEverything(r, 4)) {
          for (const m of await receiveExactly(r, left.length)) {
            seen.set(r.sessionId, [...(seen.get(r.sessionId) ?? []), m.body as number]);
            await r.completeMessage(m);
            handled++;
          }
        }
        await r.close();
      }
      return handled;
    };
    const clients = [0, 1, 2, 3].map(() => patientClient(bus));
    try {
      const counts = await Promise.all(clients.map(worker));
      expect(counts.reduce((a, b) => a + b, 0)).toBe(sessions * perSession);
      expect(counts.filter((c) => c > 0).length).toBeGreaterThan(1);
      for (let s = 0; s < sessions; s++) expect(seen.get(`s${s}`)).toEqual([...Array(perSession).keys()]);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});
