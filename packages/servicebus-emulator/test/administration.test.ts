import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peekEverything, receiveExactly } from '../../../test/support/serviceBusWaits.js';
import { configWith, queue } from './helpers.js';
import { signedFetch, startAdminStack } from './support/adminStack.js';
import type { AdminStack } from './support/adminStack.js';

type Props = Record<string, unknown>;

/**
 * Conformance of the ATOM management API with the unmodified JS `ServiceBusAdministrationClient`
 * (`@azure/service-bus` 7.9.5), which always dials HTTPS: it runs in its own process with the emulator's
 * certificate trusted through `NODE_EXTRA_CA_CERTS` only, from the connection string the emulator prints.
 */
describe('management API with the JS ServiceBusAdministrationClient', () => {
  let s: AdminStack;
  beforeAll(async () => {
    s = await startAdminStack(configWith([queue('from-config')]));
  });
  afterAll(() => s.close());

  it('gives the namespace properties and lists the queues of Config.json', async () => {
    const ns = await s.admin.call('getNamespaceProperties');
    expect(ns).toMatchObject({ name: 'test', messagingSku: 'Standard' });
    const names = (await s.admin.call<Props[]>('listQueues')).map((q) => q.name);
    expect(names).toContain('from-config');
  });

  it('creates a queue that senders and receivers use at once, with the settings asked for', async () => {
    const created = await s.admin.call('createQueue', 'made-sessions', {
      lockDuration: 'PT45S',
      maxDeliveryCount: 4,
      requiresSession: true,
      userMetadata: 'note',
    });
    expect(created).toMatchObject({
      name: 'made-sessions',
      lockDuration: 'PT45S',
      maxDeliveryCount: 4,
      requiresSession: true,
      userMetadata: 'note',
      status: 'Active',
    });
    expect(await s.admin.call('getQueue', 'made-sessions')).toMatchObject({
      lockDuration: 'PT45S',
      requiresSession: true,
    });

    await s.client.createSender('made-sessions').sendMessages({ body: 'hello', sessionId: 'S1' });
    const receiver = await s.client.acceptSession('made-sessions', 'S1');
    const [m] = await receiveExactly(receiver, 1);
    expect(m?.body).toBe('hello');
    // The lock is the queue's new 45 s, not the default minute.
    const lockMs = (m?.lockedUntilUtc?.getTime() ?? 0) - (m?.enqueuedTimeUtc?.getTime() ?? 0);
    expect(lockMs).toBeLessThanOrEqual(45_000 + 1_000);
    await receiver.completeMessage(m as never);
    await receiver.close();
  });

  it('reports runtime counts: active, dead-lettered, scheduled and sizes', async () => {
    await s.admin.call('createQueue', 'counted');
    const sender = s.client.createSender('counted');
    await sender.sendMessages([{ body: 'a' }, { body: 'b' }, { body: 'c' }]);
    await sender.scheduleMessages({ body: 'later' }, new Date(Date.now() + 3_600_000));
    const receiver = s.client.createReceiver('counted');
    const [first] = await receiveExactly(receiver, 1);
    await receiver.deadLetterMessage(first as never, {
      deadLetterReason: 'test',
      deadLetterErrorDescription: 'counted',
    });
    const rt = await s.admin.call('getQueueRuntimeProperties', 'counted');
    expect(rt).toMatchObject({
      name: 'counted',
      activeMessageCount: 2,
      deadLetterMessageCount: 1,
      scheduledMessageCount: 1,
      transferMessageCount: 0,
      totalMessageCount: 4,
    });
    expect(rt.sizeInBytes).toBeGreaterThan(0);
    const listed = (await s.admin.call<Props[]>('listQueuesRuntimeProperties')).find((q) => q.name === 'counted');
    expect(listed).toMatchObject({ activeMessageCount: 2 });
    await receiver.close();
  });

  it('answers 409 for a create of an existing name and "not found" for unknown entities', async () => {
    await s.admin.call('createQueue', 'twice');
    expect(await s.admin.failure('createQueue', 'twice')).toMatchObject({
      code: 'MessageEntityAlreadyExistsError',
      statusCode: 409,
    });
    expect(await s.admin.failure('createTopic', 'twice')).toMatchObject({
      code: 'MessageEntityAlreadyExistsError',
      statusCode: 409,
    });
    expect(await s.admin.failure('getQueue', 'never-made')).toMatchObject({ code: 'MessageEntityNotFoundError' });
    expect(await s.admin.failure('deleteQueue', 'never-made')).toMatchObject({
      code: 'MessageEntityNotFoundError',
      statusCode: 404,
    });
    expect(await s.admin.call('queueExists', 'never-made')).toBe(false);
    expect(await s.admin.call('queueExists', 'twice')).toBe(true);
  });

  it('updates a queue with If-Match and the change takes effect; RequiresSession cannot change', async () => {
    await s.admin.call('createQueue', 'updated', { maxDeliveryCount: 10 });
    const q = await s.admin.call('getQueue', 'updated');
    const after = await s.admin.call('updateQueue', { ...q, maxDeliveryCount: 1 });
    expect(after).toMatchObject({ maxDeliveryCount: 1 });
    // One delivery is now the limit: an abandon sends the message to the dead-letter queue.
    await s.client.createSender('updated').sendMessages({ body: 'once' });
    const receiver = s.client.createReceiver('updated');
    const [m] = await receiveExactly(receiver, 1);
    await receiver.abandonMessage(m as never);
    const dlq = s.client.createReceiver('updated', { subQueueType: 'deadLetter' });
    const [dead] = await receiveExactly(dlq, 1);
    expect(dead?.deadLetterReason).toBe('MaxDeliveryCountExceeded');
    expect(await s.admin.failure('updateQueue', { ...q, requiresSession: true })).toMatchObject({ statusCode: 400 });
    expect(await s.admin.failure('updateQueue', { ...q, name: 'not-there' })).toMatchObject({
      code: 'MessageEntityNotFoundError',
      statusCode: 404,
    });
    await Promise.all([receiver.close(), dlq.close()]);
  });

  it('deletes a queue with its messages; a queue made again under that name starts empty', async () => {
    await s.admin.call('createQueue', 'dropped');
    await s.client.createSender('dropped').sendMessages({ body: 'gone' });
    await s.admin.call('deleteQueue', 'dropped');
    expect(await s.admin.call('queueExists', 'dropped')).toBe(false);
    await s.admin.call('createQueue', 'dropped');
    const receiver = s.client.createReceiver('dropped');
    expect(await peekEverything(receiver)).toEqual([]);
    await receiver.close();
  });

  it('names forwarding targets by the namespace address the client addressed, not by the AMQP port', async () => {
    // On Azure one host name serves AMQP and management; a client compares forwardTo with its own endpoint.
    const endpoint = /Endpoint=(sb:\/\/[^;]+?)\/?;/.exec(
      s.emulator.administrationConnectionString as string,
    )?.[1] as string;
    expect(endpoint).toBe(`sb://127.0.0.1:${s.emulator.adminHttpsPort}`);
    expect(s.emulator.adminHttpsPort).not.toBe(s.emulator.port);
    await s.admin.call('createQueue', 'addressed-target');
    const created = await s.admin.call('createQueue', 'addressed-source', {
      forwardTo: 'addressed-target',
      forwardDeadLetteredMessagesTo: 'addressed-target',
    });
    expect(created).toMatchObject({
      forwardTo: `${endpoint}/addressed-target`,
      forwardDeadLetteredMessagesTo: `${endpoint}/addressed-target`,
    });
    await s.admin.call('createTopic', 'addressed-topic');
    const sub = await s.admin.call('createSubscription', 'addressed-topic', 'sub', { forwardTo: 'addressed-target' });
    expect(sub).toMatchObject({ forwardTo: `${endpoint}/addressed-target` });
    // The plain-HTTP listener is another address of the same namespace: its descriptions name that one.
    const xml = await (await signedFetch(`${s.http}/addressed-source?api-version=2021-05`)).text();
    expect(xml).toContain(`<ForwardTo>sb://127.0.0.1:${s.emulator.adminPort}/addressed-target</ForwardTo>`);
  });

  it('stores and returns AutoDeleteOnIdle of queues, topics and subscriptions, and refuses less than five minutes', async () => {
    expect(await s.admin.call('createQueue', 'idle-queue', { autoDeleteOnIdle: 'PT5M' })).toMatchObject({
      autoDeleteOnIdle: 'PT5M',
    });
    const queue = await s.admin.call('getQueue', 'idle-queue');
    expect(await s.admin.call('updateQueue', { ...queue, autoDeleteOnIdle: 'PT2H' })).toMatchObject({
      autoDeleteOnIdle: 'PT2H',
    });
    expect(await s.admin.call('createTopic', 'idle-topic', { autoDeleteOnIdle: 'P1D' })).toMatchObject({
      autoDeleteOnIdle: 'P1D',
    });
    expect(await s.admin.call('createSubscription', 'idle-topic', 'sub', { autoDeleteOnIdle: 'PT10M' })).toMatchObject({
      autoDeleteOnIdle: 'PT10M',
    });
    expect(await s.admin.call('getQueue', 'from-config')).toMatchObject({
      autoDeleteOnIdle: 'P10675199DT2H48M5.4775807S',
    });
    expect(await s.admin.failure('createQueue', 'too-eager', { autoDeleteOnIdle: 'PT1M' })).toMatchObject({
      statusCode: 400,
    });
  });

  it('forwards through a ForwardTo set by the client, and updates topics, subscriptions and rules', async () => {
    await s.admin.call('createQueue', 'forward-target');
    const source = await s.admin.call('createQueue', 'forward-source', { forwardTo: 'forward-target' });
    expect(String(source.forwardTo)).toMatch(/\/forward-target$/);
    expect(await s.admin.failure('createQueue', 'forward-nowhere', { forwardTo: 'no-such-queue' })).toMatchObject({
      statusCode: 400,
    });
    await s.client.createSender('forward-source').sendMessages({ body: 'moved' });
    const target = s.client.createReceiver('forward-target', { receiveMode: 'receiveAndDelete' });
    expect((await receiveExactly(target, 1)).map((m) => m.body)).toEqual(['moved']);
    await target.close();

    await s.admin.call('createTopic', 'changing');
    const topic = await s.admin.call('getTopic', 'changing');
    expect(
      await s.admin.call('updateTopic', { ...topic, maxSizeInMegabytes: 2048, userMetadata: 'bigger' }),
    ).toMatchObject({ maxSizeInMegabytes: 2048, userMetadata: 'bigger' });
    await s.admin.call('createSubscription', 'changing', 'sub');
    const sub = await s.admin.call('getSubscription', 'changing', 'sub');
    expect(
      await s.admin.call('updateSubscription', { ...sub, lockDuration: 'PT15S', maxDeliveryCount: 2 }),
    ).toMatchObject({ lockDuration: 'PT15S', maxDeliveryCount: 2 });
    const rule = await s.admin.call('getRule', 'changing', 'sub', '$Default');
    await s.admin.call('updateRule', 'changing', 'sub', { ...rule, filter: { sqlExpression: "kind = 'wanted'" } });
    expect(await s.admin.call('getRule', 'changing', 'sub', '$Default')).toMatchObject({
      filter: { sqlExpression: "kind = 'wanted'" },
    });
    await s.client.createSender('changing').sendMessages([
      { body: 'no', applicationProperties: { kind: 'other' } },
      { body: 'yes', applicationProperties: { kind: 'wanted' } },
    ]);
    const r = s.client.createReceiver('changing', 'sub', { receiveMode: 'receiveAndDelete' });
    expect((await receiveExactly(r, 1)).map((m) => m.body)).toEqual(['yes']);
    expect(await peekEverything(r)).toEqual([]);
    await r.close();
    expect(await s.admin.failure('updateRule', 'changing', 'sub', { ...rule, name: 'absent' })).toMatchObject({
      code: 'MessageEntityNotFoundError',
      statusCode: 404,
    });
  });

  it('refuses a feature it does not implement, naming it', async () => {
    const err = await s.admin.failure('createQueue', 'express', { enableExpress: true });
    expect(err.statusCode).toBe(400);
    expect(err.message).toMatch(/EnableExpress/);
  });

  it('creates topics and subscriptions; a new subscription takes everything through its $Default rule', async () => {
    await s.admin.call('createTopic', 'news', {
      requiresDuplicateDetection: true,
      duplicateDetectionHistoryTimeWindow: 'PT2M',
    });
    await s.admin.call('createSubscription', 'news', 'everything', { lockDuration: 'PT30S' });
    await s.admin.call('createSubscription', 'news', 'other');
    expect(await s.admin.call('getTopic', 'news')).toMatchObject({
      name: 'news',
      requiresDuplicateDetection: true,
      duplicateDetectionHistoryTimeWindow: 'PT2M',
    });
    expect(await s.admin.call('getSubscription', 'news', 'everything')).toMatchObject({
      topicName: 'news',
      subscriptionName: 'everything',
      lockDuration: 'PT30S',
    });
    expect((await s.admin.call<Props[]>('listSubscriptions', 'news')).map((x) => x.subscriptionName)).toEqual([
      'everything',
      'other',
    ]);
    expect(await s.admin.call<Props[]>('listRules', 'news', 'everything')).toEqual([
      { name: '$Default', filter: { sqlExpression: '1=1' }, action: {} },
    ]);

    await s.client.createSender('news').sendMessages([{ body: 1 }, { body: 2 }]);
    expect(await s.admin.call('getSubscriptionRuntimeProperties', 'news', 'everything')).toMatchObject({
      activeMessageCount: 2,
      totalMessageCount: 2,
    });
    expect(await s.admin.call('getTopicRuntimeProperties', 'news')).toMatchObject({ subscriptionCount: 2 });
    const receiver = s.client.createReceiver('news', 'everything', { receiveMode: 'receiveAndDelete' });
    expect((await receiveExactly(receiver, 2)).map((m) => m.body)).toEqual([1, 2]);
    await receiver.close();
    await s.admin.call('deleteSubscription', 'news', 'other');
    expect(await s.admin.call('subscriptionExists', 'news', 'other')).toBe(false);
  });

  it('routes by SQL filter and applies the rule action; a bad expression is refused with its position', async () => {
    await s.admin.call('createTopic', 'orders-topic');
    await s.admin.call('createSubscription', 'orders-topic', 'big-red', {
      defaultRuleOptions: {
        name: 'big',
        filter: { sqlExpression: "color = 'red' AND quantity > @min", sqlParameters: { '@min': 10 } },
        action: { sqlExpression: "SET priority = 'high'; REMOVE secret" },
      },
    });
    await s.admin.call('createSubscription', 'orders-topic', 'by-correlation');
    await s.admin.call('deleteRule', 'orders-topic', 'by-correlation', '$Default');
    await s.admin.call('createRule', 'orders-topic', 'by-correlation', 'c', {
      correlationId: 'batch-7',
      applicationProperties: { region: 'eu' },
    });
    expect(await s.admin.call('getRule', 'orders-topic', 'big-red', 'big')).toMatchObject({
      name: 'big',
      filter: { sqlExpression: "color = 'red' AND quantity > @min", sqlParameters: { '@min': 10 } },
      action: { sqlExpression: "SET priority = 'high'; REMOVE secret" },
    });

    await s.client.createSender('orders-topic').sendMessages([
      { body: 'small', applicationProperties: { color: 'red', quantity: 5 } },
      { body: 'big', applicationProperties: { color: 'red', quantity: 50, secret: 's' }, correlationId: 'batch-7' },
      { body: 'blue', applicationProperties: { color: 'blue', quantity: 50, region: 'eu' }, correlationId: 'batch-7' },
    ]);
    const bigRed = s.client.createReceiver('orders-topic', 'big-red', { receiveMode: 'receiveAndDelete' });
    const [big] = await receiveExactly(bigRed, 1);
    expect(big?.body).toBe('big');
    expect(big?.applicationProperties).toEqual({ color: 'red', quantity: 50, priority: 'high', RuleName: 'big' });
    expect(await peekEverything(bigRed)).toEqual([]);
    const byCorrelation = s.client.createReceiver('orders-topic', 'by-correlation', {
      receiveMode: 'receiveAndDelete',
    });
    expect((await receiveExactly(byCorrelation, 1)).map((m) => m.body)).toEqual(['blue']);
    expect(await peekEverything(byCorrelation)).toEqual([]);

    const bad = await s.admin.failure('createRule', 'orders-topic', 'big-red', 'broken', {
      sqlExpression: "color = = 'red'",
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.message).toMatch(/line 1, column 9/);
    expect(
      await s.admin.failure('createRule', 'orders-topic', 'big-red', 'big', { sqlExpression: '1=1' }),
    ).toMatchObject({ code: 'MessageEntityAlreadyExistsError', statusCode: 409 });
    await Promise.all([bigRed.close(), byCorrelation.close()]);
  });

  it('pages lists with $skip and $top and links the next page', async () => {
    const page = await signedFetch(`${s.http}/$Resources/Queues?$skip=1&$top=2&api-version=2021-05`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('application/atom+xml;type=feed;charset=utf-8');
    const xml = await page.text();
    expect(xml.match(/<entry /g)).toHaveLength(2);
    expect(xml).toMatch(/rel="next" href="[^"]*%24skip=3/);
    const all = await s.admin.call<Props[]>('listQueues');
    expect(all.length).toBeGreaterThan(3);
  });

  it('answers a body that is not XML, or too large, with a clear error', async () => {
    const put = (body: string): Promise<Response> =>
      signedFetch(`${s.http}/raw-queue?api-version=2021-05`, {
        method: 'PUT',
        body,
        headers: { 'content-type': 'application/atom+xml' },
      });
    const notXml = await put('{"not":"xml"}');
    expect(notXml.status).toBe(400);
    expect(await notXml.text()).toMatch(/<Error><Code>400<\/Code><Detail>The request body is not valid XML/);
    expect((await put(`<entry>${'x'.repeat(1_100_000)}</entry>`)).status).toBe(413);
    expect(await s.admin.call('queueExists', 'raw-queue')).toBe(false);
  });

  it('serves the same API over plain HTTP, and /health and /stats as before', async () => {
    const entry = await signedFetch(`${s.http}/from-config?api-version=2021-05`);
    expect(entry.headers.get('content-type')).toBe('application/atom+xml;type=entry;charset=utf-8');
    expect(await entry.text()).toMatch(/<title type="text">from-config<\/title>.*<QueueDescription /s);
    expect(await (await fetch(`${s.http}/health`)).json()).toEqual({ status: 'healthy' });
    expect((await fetch(`${s.http}/stats`)).status).toBe(200);
  });
});

describe('management API changes survive a restart with --data-dir', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sb-admin-data-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('keeps created entities, rules and their messages, and not deleted ones', async () => {
    const first = await startAdminStack(configWith([queue('seeded'), queue('deleted-later')]), dir);
    try {
      await first.admin.call('createQueue', 'durable-made', { maxDeliveryCount: 3 });
      await first.admin.call('createTopic', 'durable-topic');
      await first.admin.call('createSubscription', 'durable-topic', 'vip', {
        defaultRuleOptions: { name: 'vip', filter: { sqlExpression: 'tier IN (1, 2)' } },
      });
      await first.admin.call('deleteQueue', 'deleted-later');
      await first.client.createSender('durable-made').sendMessages({ body: 'kept' });
    } finally {
      await first.close();
    }
    // The data directory wins over --config, which still brings what is new in it but not what the API deleted.
    const second = await startAdminStack(
      configWith([queue('seeded', { MaxDeliveryCount: 9 }), queue('deleted-later'), queue('added-later')]),
      dir,
    );
    try {
      expect(await second.admin.call('getQueue', 'durable-made')).toMatchObject({ maxDeliveryCount: 3 });
      expect(await second.admin.call('queueExists', 'deleted-later')).toBe(false);
      expect(await second.admin.call('queueExists', 'added-later')).toBe(true);
      expect(await second.admin.call('getQueue', 'seeded')).toMatchObject({ maxDeliveryCount: 10 });
      expect(await second.admin.call<Props[]>('listRules', 'durable-topic', 'vip')).toEqual([
        { name: 'vip', filter: { sqlExpression: 'tier IN (1, 2)' }, action: {} },
      ]);
      const receiver = second.client.createReceiver('durable-made', { receiveMode: 'receiveAndDelete' });
      expect((await receiveExactly(receiver, 1)).map((m) => m.body)).toEqual(['kept']);
      await second.client.createSender('durable-topic').sendMessages([
        { body: 'no', applicationProperties: { tier: 3 } },
        { body: 'yes', applicationProperties: { tier: 2 } },
      ]);
      const vip = second.client.createReceiver('durable-topic', 'vip', { receiveMode: 'receiveAndDelete' });
      expect((await receiveExactly(vip, 1)).map((m) => m.body)).toEqual(['yes']);
      expect(await peekEverything(vip)).toEqual([]);
      await Promise.all([receiver.close(), vip.close()]);
    } finally {
      await second.close();
    }
  });
});
