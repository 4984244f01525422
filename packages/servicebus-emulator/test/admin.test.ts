import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminServer } from '../src/admin/adminServer.js';
import { receiveExactly } from '../../../test/support/serviceBusWaits.js';
import { configWith, queue, startBus } from './helpers.js';
import type { TestBus } from './helpers.js';

const Q = { plain: 'admin-plain', sessions: 'admin-sessions' };

describe('admin HTTP port', () => {
  let bus: TestBus;
  let admin: AdminServer;
  let base: string;
  beforeAll(async () => {
    bus = await startBus(configWith([queue(Q.plain), queue(Q.sessions, { RequiresSession: true })]));
    admin = new AdminServer(bus.emulator.broker);
    base = `http://127.0.0.1:${await admin.listen('127.0.0.1', 0)}`;
  });
  afterAll(async () => {
    await admin.close();
    await bus.close();
  });

  it('answers /health like the official emulator', async () => {
    const res = await fetch(`${base}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'healthy' });
    expect((await fetch(`${base}/nope`)).status).toBe(404);
  });

  it('reports per-entity counts and each session with its depth and lock holder', async () => {
    const sender = bus.client.createSender(Q.plain);
    await sender.sendMessages([{ body: 1 }, { body: 2 }, { body: 3 }]);
    await sender.scheduleMessages({ body: 'later' }, new Date(Date.now() + 60_000));
    const r = bus.client.createReceiver(Q.plain);
    const [a, b] = await receiveExactly(r, 2);
    await r.deferMessage(a as never);
    await r.deadLetterMessage(b as never, { deadLetterReason: 'x', deadLetterErrorDescription: 'y' });
    await bus.client.createSender(Q.sessions).sendMessages([
      { body: 1, sessionId: 'A' },
      { body: 2, sessionId: 'A' },
      { body: 3, sessionId: 'B' },
    ]);
    const holder = await bus.client.acceptSession(Q.sessions, 'A');

    const stats = (await (await fetch(`${base}/stats`)).json()) as {
      entities: {
        name: string;
        active: number;
        scheduled: number;
        deferred: number;
        deadLettered: number;
        sessions?: { id: string; depth: number; holder?: string }[];
      }[];
    };
    const plain = stats.entities.find((e) => e.name === Q.plain);
    expect(plain).toMatchObject({ active: 1, scheduled: 1, deferred: 1, deadLettered: 1 });
    const sessions = stats.entities.find((e) => e.name === Q.sessions)?.sessions ?? [];
    const byId = Object.fromEntries(sessions.map((s) => [s.id, s]));
    expect(byId.A?.depth).toBe(2);
    expect(typeof byId.A?.holder).toBe('string');
    expect(byId.B).toMatchObject({ depth: 1 });
    expect(byId.B?.holder).toBeUndefined();
    await holder.close();
  });
});
