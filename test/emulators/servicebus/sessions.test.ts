import { ServiceBusClient, isServiceBusError } from '@azure/service-bus';
import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith, queue, sleep, startBus } from './helpers.js';
import type { TestBus } from './helpers.js';

const Q = {
  basic: 'sess-basic', locked: 'sess-locked', next: 'sess-next', held: 'sess-held', expiry: 'sess-expiry',
  fifo: 'sess-fifo', many: 'sess-many', deferred: 'sess-deferred',
};
const noRenew = { maxAutoLockRenewalDurationInMs: 0 };

describe('sessions with the real SDK', () => {
  let bus: TestBus;
  beforeAll(async () => {
    bus = await startBus(
      configWith([
        queue(Q.basic, { RequiresSession: true }), queue(Q.locked, { RequiresSession: true }),
        queue(Q.next, { RequiresSession: true }), queue(Q.held, { RequiresSession: true }),
        queue(Q.expiry, { RequiresSession: true, LockDuration: 'PT1S' }), queue(Q.fifo, { RequiresSession: true }),
        queue(Q.many, { RequiresSession: true }), queue(Q.deferred, { RequiresSession: true }),
      ]),
    );
  });
  afterAll(() => bus.close());

  it('acceptSession receives that session in order, keeps state and renews its lock', async () => {
    await bus.client.createSender(Q.basic).sendMessages([
      { body: 1, sessionId: 'A' }, { body: 'other', sessionId: 'B' }, { body: 2, sessionId: 'A' }, { body: 3, sessionId: 'A' },
    ]);
    const r = await bus.client.acceptSession(Q.basic, 'A', noRenew);
    expect(r.sessionId).toBe('A');
    expect(r.sessionLockedUntilUtc.getTime()).toBeGreaterThan(Date.now());
    const got = await r.receiveMessages(3, { maxWaitTimeInMs: 2000 });
    expect(got.map((m) => [m.body, m.sessionId])).toEqual([[1, 'A'], [2, 'A'], [3, 'A']]);
    for (const m of got) await r.completeMessage(m);
    expect(await r.getSessionState()).toBeNull();
    await r.setSessionState({ step: 3 });
    expect(await r.getSessionState()).toEqual({ step: 3 });
    const before = r.sessionLockedUntilUtc.getTime();
    await sleep(20);
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
    const err = await bus.newClient().acceptSession(Q.locked, 'S').catch((e: unknown) => e);
    expect(isServiceBusError(err) && err.code).toBe('SessionCannotBeLocked');
    await holder.close();
    const next = await bus.newClient().acceptSession(Q.locked, 'S');
    expect((await next.receiveMessages(1, { maxWaitTimeInMs: 2000 }))[0]?.body).toBe(1);
    await next.close();
  });

  it('acceptNextSession gives competing receivers different sessions', async () => {
    await bus.client.createSender(Q.next).sendMessages([{ body: 1, sessionId: 'x' }, { body: 2, sessionId: 'y' }]);
    const a = await bus.client.acceptNextSession(Q.next, noRenew);
    const b = await bus.newClient().acceptNextSession(Q.next, noRenew);
    expect([a.sessionId, b.sessionId].sort()).toEqual(['x', 'y']);
    await Promise.all([a.close(), b.close()]);
  });

  it('holds acceptNextSession until a session has a message, and times out with ServiceTimeout', async () => {
    // Prepare: a client whose operation timeout bounds the held attach.
    const quick = new ServiceBusClient(bus.emulator.connectionString, { retryOptions: { maxRetries: 0, timeoutInMs: 1000 } });
    try {
      // Act: nothing there yet; a message arrives while the attach is held.
      const pending = quick.acceptNextSession(Q.held, noRenew);
      await sleep(300);
      await bus.client.createSender(Q.held).sendMessages({ body: 'late', sessionId: 'L' });
      const r = await pending;
      expect(r.sessionId).toBe('L');
      const t0 = Date.now();
      const err = await quick.acceptNextSession(Q.held).catch((e: unknown) => e);
      // Assess
      expect(isServiceBusError(err) && err.code).toBe('ServiceTimeout');
      expect(Date.now() - t0).toBeGreaterThanOrEqual(800);
      await r.close();
    } finally {
      await quick.close();
    }
  });

  it('an expired session lock ends the holder with SessionLockLost and hands its messages back in order', async () => {
    await bus.client.createSender(Q.expiry).sendMessages([1, 2, 3].map((n) => ({ body: n, sessionId: 'E' })));
    const first = await bus.client.acceptSession(Q.expiry, 'E', noRenew);
    const got = await first.receiveMessages(2, { maxWaitTimeInMs: 2000 });
    expect(got.map((m) => m.body)).toEqual([1, 2]);
    await sleep(1300);
    const err = await first.completeMessage(got[0] as ServiceBusReceivedMessage).catch((e: unknown) => e);
    expect(isServiceBusError(err) && err.code).toBe('SessionLockLost');
    const second = await bus.newClient().acceptSession(Q.expiry, 'E', noRenew);
    const again = await second.receiveMessages(3, { maxWaitTimeInMs: 2000 });
    expect(again.map((m) => [m.body, m.deliveryCount])).toEqual([[1, 1], [2, 1], [3, 0]]);
    for (const m of again) await second.completeMessage(m);
    await second.close();
  });

  it('keeps strict FIFO within a session across abandon', async () => {
    await bus.client.createSender(Q.fifo).sendMessages([1, 2, 3].map((n) => ({ body: n, sessionId: 'F' })));
    const r = await bus.client.acceptSession(Q.fifo, 'F', noRenew);
    const [m1] = await r.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    await r.abandonMessage(m1 as ServiceBusReceivedMessage);
    const order: unknown[] = [];
    while (order.length < 3) {
      const [m] = await r.receiveMessages(1, { maxWaitTimeInMs: 2000 });
      if (!m) break;
      order.push(m.body);
      await r.completeMessage(m);
    }
    expect(order).toEqual([1, 2, 3]);
    await r.close();
  });

  it('defers within a session and receives the deferred message by sequence number', async () => {
    await bus.client.createSender(Q.deferred).sendMessages([{ body: 'd', sessionId: 'D' }, { body: 'n', sessionId: 'D' }]);
    const r = await bus.client.acceptSession(Q.deferred, 'D', noRenew);
    const [d] = await r.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    await r.deferMessage(d as ServiceBusReceivedMessage);
    const [deferred] = await r.receiveDeferredMessages(d?.sequenceNumber as never);
    expect(deferred?.body).toBe('d');
    await r.completeMessage(deferred as ServiceBusReceivedMessage);
    const [n] = await r.receiveMessages(1, { maxWaitTimeInMs: 2000 });
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
    const worker = async (client: ServiceBusClient): Promise<number> => {
      let handled = 0;
      for (;;) {
        const r = await client.acceptNextSession(Q.many, noRenew).catch(() => undefined);
        if (!r) return handled;
        for (;;) {
          const batch = await r.receiveMessages(4, { maxWaitTimeInMs: 200 });
          if (batch.length === 0) break;
          for (const m of batch) {
            seen.set(r.sessionId, [...(seen.get(r.sessionId) ?? []), m.body as number]);
            await r.completeMessage(m);
            handled++;
          }
        }
        await r.close();
      }
    };
    const quick = [0, 1, 2, 3].map(() => new ServiceBusClient(bus.emulator.connectionString, { retryOptions: { maxRetries: 0, timeoutInMs: 700 } }));
    try {
      const counts = await Promise.all(quick.map(worker));
      expect(counts.reduce((a, b) => a + b, 0)).toBe(sessions * perSession);
      expect(counts.filter((c) => c > 0).length).toBeGreaterThan(1);
      for (let s = 0; s < sessions; s++) expect(seen.get(`s${s}`)).toEqual([...Array(perSession).keys()]);
    } finally {
      await Promise.all(quick.map((c) => c.close()));
    }
  });
});
