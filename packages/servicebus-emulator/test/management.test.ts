import rhea from 'rhea';
import type { Connection } from 'rhea';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith, queue, startBus } from './helpers.js';
import type { TestBus } from './helpers.js';
import { managementRequest, rawConnect } from './rawAmqp.js';

const Q = { sessions: 'mgmt-sessions', plain: 'mgmt-plain' };

/** What the SDKs cannot show: raw `$management` replies, their status codes and AMQP array types. */
describe('$management over raw AMQP', () => {
  let bus: TestBus;
  let conn: Connection;
  beforeAll(async () => {
    bus = await startBus(configWith([queue(Q.sessions, { RequiresSession: true }), queue(Q.plain)]));
    conn = await rawConnect(bus.emulator.port);
  });
  afterAll(async () => {
    conn.close();
    await bus.close();
  });

  it('get-message-sessions lists sessions that hold messages, as a string array', async () => {
    await bus.client.createSender(Q.sessions).sendMessages([
      { body: 1, sessionId: 'one' },
      { body: 2, sessionId: 'two' },
    ]);
    const reply = await managementRequest(conn, Q.sessions, 'com.microsoft:get-message-sessions', {
      skip: rhea.types.wrap_int(0),
      top: rhea.types.wrap_int(10),
      'last-updated-time': new Date(0),
    });
    expect(reply.application_properties?.statusCode).toBe(200);
    expect((reply.body as Record<string, unknown>)['sessions-ids']).toEqual(['one', 'two']);
  });

  it('schedule-message answers sequence numbers as a typed long array', async () => {
    const encoded = rhea.message.encode({
      body: 'later',
      message_id: 'sched-1',
      message_annotations: { 'x-opt-scheduled-enqueue-time': new Date(Date.now() + 60_000) },
    } as never);
    const reply = await managementRequest(conn, Q.plain, 'com.microsoft:schedule-message', {
      messages: [{ message: encoded, 'message-id': 'sched-1' }],
    });
    expect(reply.application_properties?.statusCode).toBe(200);
    const seqs = (reply.body as Record<string, unknown>)['sequence-numbers'] as unknown[];
    expect(seqs).toHaveLength(1);
    expect(Number(seqs[0])).toBeGreaterThan(0);
  });

  it('answers an unknown operation with 501 and a lock-lost renew with 410 and its condition', async () => {
    const unknown = await managementRequest(conn, Q.plain, 'com.microsoft:frobnicate', {});
    expect(unknown.application_properties?.statusCode).toBe(501);
    const lost = await managementRequest(conn, Q.plain, 'com.microsoft:renew-lock', {
      'lock-tokens': rhea.types.wrap_array([Buffer.alloc(16, 1)], 0x98, undefined),
    });
    expect(lost.application_properties?.statusCode).toBe(410);
    expect(lost.application_properties?.errorCondition).toBe('com.microsoft:message-lock-lost');
  });
});
