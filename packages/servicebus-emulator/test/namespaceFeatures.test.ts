import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isServiceBusError, ServiceBusClient } from '@azure/service-bus';
import type { CorrelationRuleFilter, ServiceBusMessage } from '@azure/service-bus';
import type { Connection } from 'rhea';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start } from '../src/index.js';
import { peekEverything, receiveExactly } from '../../../test/support/serviceBusWaits.js';
import { configWith, fastClientOptions, queue } from './helpers.js';
import { rawConnect } from './rawAmqp.js';
import { startAdminStack } from './support/adminStack.js';
import type { AdminStack } from './support/adminStack.js';

/** Sends one message over plain AMQP and resolves with the error of its rejection (undefined when accepted). */
function rawSend(
  conn: Connection,
  address: string,
  message: Record<string, unknown>,
): Promise<{ condition?: string; description?: string } | undefined> {
  return new Promise((resolve) => {
    const sender = conn.open_sender({ target: { address } } as never);
    sender.once('sendable', () => {
      const delivery = sender.send(message as never);
      sender.on('accepted', (ctx) => ctx.delivery === delivery && resolve(undefined));
      sender.on(
        'rejected',
        (ctx) =>
          ctx.delivery === delivery &&
          resolve(
            (ctx.delivery as unknown as { remote_state?: { error?: { condition?: string; description?: string } } })
              .remote_state?.error,
          ),
      );
    });
  });
}

/** Receives one message of a session (receiveAndDelete) over plain AMQP, with the session id the broker echoed. */
function rawReceiveOne(
  conn: Connection,
  address: string,
  sessionId: string,
): Promise<{ sessionFilter: unknown; body: unknown; groupId: unknown }> {
  return new Promise((resolve) => {
    const receiver = conn.open_receiver({
      source: { address, filter: { 'com.microsoft:session-filter': sessionId } },
      snd_settle_mode: 1,
      autoaccept: true,
    } as never);
    receiver.once('message', (ctx) => {
      const filter = (receiver.source as unknown as { filter?: Record<string, unknown> }).filter;
      // The JS SDK sends a string body as one data section holding its JSON.
      const body = ctx.message?.body as { content?: Buffer } | undefined;
      resolve({
        sessionFilter: filter?.['com.microsoft:session-filter'],
        body: body?.content ? JSON.parse(Buffer.from(body.content).toString()) : body,
        groupId: ctx.message?.group_id,
      });
    });
  });
}

/** The error a failed SDK call reports. */
async function failureOf(call: Promise<unknown>): Promise<{ code?: string; message: string }> {
  try {
    await call;
  } catch (err) {
    return { code: isServiceBusError(err) ? err.code : undefined, message: (err as Error).message };
  }
  throw new Error('the call succeeded, a failure was expected');
}

const topic = (name: string, subscriptions: string[], props: Record<string, unknown> = {}): object => ({
  Name: name,
  Properties: props,
  Subscriptions: subscriptions.map((s) => ({ Name: s, Properties: { LockDuration: 'PT5S' }, Rules: [] })),
});

/** What Azure documents of a namespace beyond plain queues, driven by the unmodified JS SDK. */
describe('namespace features', () => {
  let s: AdminStack;
  let client: ServiceBusClient;
  beforeAll(async () => {
    s = await startAdminStack(
      configWith(
        [
          queue('parted', { EnablePartitioning: true } as never),
          queue('parted-sessions', { EnablePartitioning: true, RequiresSession: true } as never),
          queue('plain'),
          queue('sessions', { RequiresSession: true }),
        ],
        [topic('news', ['all']), topic('ruled', ['picky'])],
      ),
    );
    client = s.client;
  });
  afterAll(() => s.close());

  it('describes a partitioned queue as partitioned and holds it to the partition-key rules', async () => {
    expect(await s.admin.call('getQueue', 'parted')).toMatchObject({ enablePartitioning: true });
    // PartitionKey must equal SessionId when both are set ("Partitioned queues and topics", Use of partition keys);
    // the JS SDK refuses that itself, so the message goes out over plain AMQP.
    const conn = await rawConnect(s.emulator.port);
    try {
      const mismatched = await rawSend(conn, 'parted-sessions', {
        body: 'x',
        group_id: 'A',
        message_annotations: { 'x-opt-partition-key': 'B' },
      });
      expect(mismatched).toMatchObject({
        condition: 'amqp:not-allowed',
        description: expect.stringMatching(/PartitionKey 'B'.*SessionId 'A'/),
      });
    } finally {
      conn.close();
    }
    const sessions = client.createSender('parted-sessions');
    const parted = client.createSender('parted');
    expect(
      (
        await failureOf(
          parted.sendMessages([
            { body: 1, partitionKey: 'p' },
            { body: 2, partitionKey: 'q' },
          ]),
        )
      ).message,
    ).toMatch(/more than one partition key/);
    await parted.sendMessages([
      { body: 1, partitionKey: 'p' },
      { body: 2, partitionKey: 'p' },
    ]);
    await sessions.sendMessages({ body: 'same', sessionId: 'A', partitionKey: 'A' });
    const received = await receiveExactly(client.createReceiver('parted', { receiveMode: 'receiveAndDelete' }), 2);
    expect(received.map((m) => [m.body, m.partitionKey])).toEqual([
      [1, 'p'],
      [2, 'p'],
    ]);
  });

  it('refuses sends to a SendDisabled queue and receives from a ReceiveDisabled one with MessagingEntityDisabled', async () => {
    await s.admin.call('createQueue', 'paused', { status: 'SendDisabled' });
    expect(await s.admin.call('getQueue', 'paused')).toMatchObject({ status: 'SendDisabled' });
    expect((await failureOf(client.createSender('paused').sendMessages({ body: 'x' }))).code).toBe(
      'MessagingEntityDisabled',
    );

    const q = await s.admin.call('getQueue', 'paused');
    await s.admin.call('updateQueue', { ...q, status: 'Active' });
    await client.createSender('paused').sendMessages({ body: 'kept' });
    await s.admin.call('updateQueue', { ...q, status: 'ReceiveDisabled' });
    const refused = await failureOf(client.createReceiver('paused').receiveMessages(1, { maxWaitTimeInMs: 1000 }));
    expect(refused.code).toBe('MessagingEntityDisabled');
    await s.admin.call('updateQueue', { ...q, status: 'Active' });
    expect(
      (await receiveExactly(client.createReceiver('paused', { receiveMode: 'receiveAndDelete' }), 1)).map(
        (m) => m.body,
      ),
    ).toEqual(['kept']);
  });

  it('manages rules over AMQP: created, listed by name with their filters and actions, applied, removed', async () => {
    const rules = client.createRuleManager('ruled', 'picky');
    await rules.deleteRule('$Default');
    const when = new Date('2000-01-01T00:00:00.000Z');
    const correlation: CorrelationRuleFilter = {
      subject: 'red',
      applicationProperties: { since: when, n: 2, ok: true, s: 'x' },
    };
    await rules.createRule('z-correlation', correlation);
    await rules.createRule(
      'a-sql',
      { sqlExpression: "colour = 'green'" },
      { sqlExpression: "SET sys.Label = 'GREEN'; SET seen = 1" },
    );
    expect((await failureOf(rules.createRule('a-sql', { sqlExpression: '1=1' }))).code).toBe(
      'MessagingEntityAlreadyExists',
    );

    const listed = [];
    for await (const r of rules.listRules()) listed.push(r);
    expect(listed.map((r) => r.name)).toEqual(['a-sql', 'z-correlation']);
    expect(listed[0]).toMatchObject({
      filter: { sqlExpression: "colour = 'green'" },
      action: { sqlExpression: "SET sys.Label = 'GREEN'; SET seen = 1" },
    });
    expect(listed[1]?.filter).toMatchObject({
      subject: 'red',
      applicationProperties: { since: when, n: 2, ok: true, s: 'x' },
    });

    const sender = client.createSender('ruled');
    await sender.sendMessages([
      { body: 'dated', subject: 'red', applicationProperties: { since: when, n: 2, ok: true, s: 'x' } },
      { body: 'other date', subject: 'red', applicationProperties: { since: new Date(0), n: 2, ok: true, s: 'x' } },
      { body: 'green', subject: 'plain', applicationProperties: { Colour: 'green' } },
    ]);
    const got = await receiveExactly(client.createReceiver('ruled', 'picky', { receiveMode: 'receiveAndDelete' }), 2);
    expect(got.map((m) => [m.body, m.subject, m.applicationProperties?.seen ?? null]).sort()).toEqual([
      ['dated', 'red', null],
      ['green', 'GREEN', 1],
    ]);

    await rules.deleteRule('z-correlation');
    expect((await failureOf(rules.deleteRule('z-correlation'))).code).toBe('MessagingEntityNotFound');
  });

  it('schedules on a topic and cancels there, reaching the copies in the subscriptions', async () => {
    const sender = client.createSender('news');
    const at = new Date(Date.now() + 60_000);
    const [kept, cancelled] = await sender.scheduleMessages([{ body: 'kept' }, { body: 'cancelled' }], at);
    await sender.cancelScheduledMessages(cancelled as never);
    const peeked = await peekEverything(client.createReceiver('news', 'all'));
    expect(peeked.map((m) => [m.body, m.state])).toEqual([['kept', 'scheduled']]);
    expect(kept).toBeDefined();
  });

  it('peeks without bodies when asked to omit them', async () => {
    await client.createSender('plain').sendMessages({ body: 'heavy', messageId: 'omit-1' });
    const r = client.createReceiver('plain');
    const [withBody] = await r.peekMessages(1);
    // `omitMessageBody` is in the SDK's peek options from 7.10 on; 7.9.5 passes it through to the request.
    const [withoutBody] = await r.peekMessages(1, {
      fromSequenceNumber: withBody?.sequenceNumber,
      omitMessageBody: true,
    } as never);
    expect(withBody?.body).toBe('heavy');
    expect(withoutBody?.messageId).toBe('omit-1');
    expect(withoutBody?.body).toBeUndefined();
    await receiveExactly(client.createReceiver('plain', { receiveMode: 'receiveAndDelete' }), 1);
  });

  it('gives back the AMQP header a sender set, and the Scheduled state of a message that came in scheduled', async () => {
    const sender = client.createSender('plain');
    // An AmqpAnnotatedMessage (not exported by name from 7.9.5's typings, accepted by sendMessages).
    const annotated = {
      body: 'raw',
      bodyType: 'data',
      header: { durable: false, firstAcquirer: false, priority: 20, timeToLive: 100_000 },
    };
    await sender.sendMessages(annotated as unknown as ServiceBusMessage);
    const [m] = await receiveExactly(client.createReceiver('plain', { receiveMode: 'receiveAndDelete' }), 1);
    expect(m?._rawAmqpMessage.header).toMatchObject({
      durable: false,
      firstAcquirer: false,
      priority: 20,
      timeToLive: 100_000,
    });

    await sender.scheduleMessages({ body: 'later' }, new Date(Date.now() + 500));
    const [scheduled] = await receiveExactly(client.createReceiver('plain', { receiveMode: 'receiveAndDelete' }), 1);
    expect(scheduled?.state).toBe('scheduled');
  });

  it('keeps the delivery count of a deferred message received by sequence number and dead-lettered', async () => {
    await client.createSender('plain').sendMessages({ body: 'to defer' });
    const r = client.createReceiver('plain');
    const [first] = await receiveExactly(r, 1);
    await r.deferMessage(first as never);
    const [deferred] = await r.receiveDeferredMessages(first?.sequenceNumber as never);
    expect(deferred?.deliveryCount).toBe(1);
    await r.deadLetterMessage(deferred as never);
    const [dead] = await receiveExactly(
      client.createReceiver('plain', { subQueueType: 'deadLetter', receiveMode: 'receiveAndDelete' }),
      1,
    );
    expect(dead?.deliveryCount).toBe(1);
  });

  it('treats an empty session id as a session like any other', async () => {
    // The JS SDK (7.9.5) takes an echoed "" for "no session", so the session receiver is plain AMQP here.
    await client.createSender('sessions').sendMessages([
      { body: 'named', sessionId: 'S' },
      { body: 'empty', sessionId: '' },
    ]);
    const conn = await rawConnect(s.emulator.port);
    try {
      const got = await rawReceiveOne(conn, 'sessions', '');
      expect(got).toMatchObject({ sessionFilter: '', body: 'empty', groupId: '' });
    } finally {
      conn.close();
    }
    const rest = await client.acceptSession('sessions', 'S', { receiveMode: 'receiveAndDelete' });
    expect((await receiveExactly(rest, 1)).map((m) => m.body)).toEqual(['named']);
    await rest.close();
  });

  it('dead-letters a message a rule fails to evaluate, as a new subscription does by default', async () => {
    await s.admin.call('createSubscription', 'news', 'strict');
    expect(await s.admin.call('getSubscription', 'news', 'strict')).toMatchObject({
      deadLetteringOnFilterEvaluationExceptions: true,
    });
    const rules = client.createRuleManager('news', 'strict');
    await rules.deleteRule('$Default');
    await rules.createRule('divides', { sqlExpression: 'n / 0 = 1' });
    await client.createSender('news').sendMessages({ body: 'unevaluable', applicationProperties: { n: 4 } });
    const [dead] = await receiveExactly(
      client.createReceiver('news', 'strict', { subQueueType: 'deadLetter', receiveMode: 'receiveAndDelete' }),
      1,
    );
    expect(dead).toMatchObject({ body: 'unevaluable', deadLetterReason: 'FilterEvaluationException' });
    await receiveExactly(client.createReceiver('news', 'all', { receiveMode: 'receiveAndDelete' }), 1);
  });
});

describe("a topic's duplicate detection", () => {
  it('remembers accepted message ids across a restart, as a queue does', async () => {
    // Prepare: a topic that detects duplicates, with durable data.
    const dataDir = await mkdtemp(join(tmpdir(), 'sb-topic-dup-'));
    const config = configWith(
      [],
      [topic('dedup', ['all'], { RequiresDuplicateDetection: true, DuplicateDetectionHistoryTimeWindow: 'PT10M' })],
    );
    try {
      const first = await start({ port: 0, adminPort: 0, config, dataDir });
      const c1 = new ServiceBusClient(first.connectionString, fastClientOptions);
      await c1.createSender('dedup').sendMessages({ body: 'once', messageId: 'same-id' });
      await c1.close();
      await first.close();

      // Act: restart on the same data and send the same id again.
      const second = await start({ port: 0, adminPort: 0, config, dataDir });
      const c2 = new ServiceBusClient(second.connectionString, fastClientOptions);
      await c2.createSender('dedup').sendMessages({ body: 'again', messageId: 'same-id' });

      // Assess: only the first copy is there.
      expect((await peekEverything(c2.createReceiver('dedup', 'all'))).map((m) => m.body)).toEqual(['once']);
      await c2.close();
      await second.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a data directory older than the entity file', () => {
  it('refuses to start when a name it holds as a queue is a topic in the entity file, naming the entity', async () => {
    // Prepare: `events` was a queue when the data directory was written.
    const dataDir = await mkdtemp(join(tmpdir(), 'sb-kind-change-'));
    try {
      const first = await start({ port: 0, adminPort: 0, config: configWith([queue('events')]), dataDir });
      await first.close();
      // Act
      const starting = start({ port: 0, adminPort: 0, config: configWith([], [topic('events', ['all'])]), dataDir });
      // Assess
      await expect(starting).rejects.toThrow(
        /entity "events" is a topic in the entity file but a queue in the data directory \(.+\): delete the data directory/,
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('queue-like settings', () => {
  it('are read from Config.json with partitioning, status and entity rules', async () => {
    const e = await start({
      port: 0,
      adminPort: 0,
      config: configWith([
        queue('cfg', {
          EnablePartitioning: true,
          Status: 'SendDisabled',
          AuthorizationRules: [{ KeyName: 'k', PrimaryKey: 'a', SecondaryKey: 'b', Rights: ['Send'] }],
        } as never),
      ]),
    });
    try {
      expect(e.broker.findQueue('cfg')?.settings).toMatchObject({
        enablePartitioning: true,
        status: 'SendDisabled',
        authorizationRules: [{ keyName: 'k', rights: ['Send'] }],
      });
    } finally {
      await e.close();
    }
  });
});
