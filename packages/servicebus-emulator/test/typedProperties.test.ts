import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import rhea from 'rhea';
import type { Connection } from 'rhea';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiveExactly } from '../../../test/support/serviceBusWaits.js';
import { configWith, queue, startBus } from './helpers.js';
import type { TestBus } from './helpers.js';
import { appPropertyTypes, managementRequest, rawConnect, receiveRaw } from './rawAmqp.js';

const Q = { abandon: 'typed-abandon', defer: 'typed-defer', dead: 'typed-dead' };

/**
 * rhea encodes a value that offers `toRheaTyped()` as that AMQP value: this is how a test sends the types a .NET
 * client sends (a JS number alone would go out as whatever rhea picks, e.g. a positive int as uint).
 */
const typed = (t: unknown): never => ({ toRheaTyped: () => t }) as never;

const props = {
  i: typed(rhea.types.wrap_int(7)),
  l: typed(rhea.types.wrap_long(2 ** 40)),
  d: typed(rhea.types.wrap_double(2)),
  b: typed(rhea.types.wrap_boolean(true)),
  s: typed(rhea.types.wrap_string('text')),
  t: typed(rhea.types.wrap_timestamp(Date.UTC(2026, 0, 2))),
};
const expectedTypes = { i: 'int', l: 'long', d: 'double', b: 'boolean', s: 'string', t: 'timestamp' };

describe('propertiesToModify keep their AMQP types on every settlement', () => {
  let bus: TestBus;
  let conn: Connection;
  beforeAll(async () => {
    bus = await startBus(configWith([queue(Q.abandon), queue(Q.defer), queue(Q.dead)]));
    conn = await rawConnect(bus.emulator.port);
  });
  afterAll(async () => {
    conn.close();
    await bus.close();
  });

  async function receiveOne(
    name: string,
  ): Promise<{ m: ServiceBusReceivedMessage; receiver: ReturnType<TestBus['client']['createReceiver']> }> {
    await bus.client.createSender(name).sendMessages({ body: 'x', applicationProperties: { kept: 'yes' } });
    const receiver = bus.client.createReceiver(name);
    const [m] = await receiveExactly(receiver, 1);
    return { m: m as ServiceBusReceivedMessage, receiver };
  }

  it('abandon', async () => {
    const { m, receiver } = await receiveOne(Q.abandon);
    await receiver.abandonMessage(m, props);
    await receiver.close();
    expect(appPropertyTypes(await receiveRaw(conn, Q.abandon))).toEqual({ kept: 'string', ...expectedTypes });
  });

  /** The stored message with this sequence number, as bytes, through a raw `$management` peek. */
  async function peekRaw(name: string, seq: number): Promise<Buffer> {
    const reply = await managementRequest(conn, name, 'com.microsoft:peek-message', {
      'from-sequence-number': rhea.types.wrap_long(seq),
      'message-count': rhea.types.wrap_int(1),
    });
    return (reply.body as { messages: { message: Buffer }[] }).messages[0]?.message as Buffer;
  }

  it('defer, and abandon of the deferred message through $management', async () => {
    const { m, receiver } = await receiveOne(Q.defer);
    const seq = (m.sequenceNumber as unknown as { toNumber(): number }).toNumber();
    await receiver.deferMessage(m, props);
    expect(appPropertyTypes(await peekRaw(Q.defer, seq))).toEqual({ kept: 'string', ...expectedTypes });

    // A deferred message is settled through $management: properties-to-modify travels in the request body.
    const [deferred] = await receiver.receiveDeferredMessages(m.sequenceNumber as never);
    await receiver.abandonMessage(deferred as ServiceBusReceivedMessage, {
      i2: typed(rhea.types.wrap_int(8)),
      l2: typed(rhea.types.wrap_long(9)),
    });
    expect(appPropertyTypes(await peekRaw(Q.defer, seq))).toEqual({
      kept: 'string',
      ...expectedTypes,
      i2: 'int',
      l2: 'long',
    });
    await receiver.close();
  });

  it('dead-letter', async () => {
    const { m, receiver } = await receiveOne(Q.dead);
    await receiver.deadLetterMessage(m, { deadLetterReason: 'R', deadLetterErrorDescription: 'D', ...props } as never);
    await receiver.close();
    expect(appPropertyTypes(await receiveRaw(conn, `${Q.dead}/$DeadLetterQueue`))).toEqual({
      kept: 'string',
      ...expectedTypes,
      DeadLetterReason: 'string',
      DeadLetterErrorDescription: 'string',
    });
  });
});
