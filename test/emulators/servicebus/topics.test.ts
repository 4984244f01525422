import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith, queue, startBus } from './helpers.js';
import type { TestBus } from './helpers.js';

const T = 'topic-orders';
const rule = (name: string, filter: Record<string, unknown>): unknown => ({ Name: name, Properties: { FilterType: 'Correlation', CorrelationFilter: filter } });

describe('topics, subscriptions and correlation filters', () => {
  let bus: TestBus;
  beforeAll(async () => {
    bus = await startBus(
      configWith([queue('topic-forward-target')], [
        {
          Name: T,
          Properties: { RequiresDuplicateDetection: true, DuplicateDetectionHistoryTimeWindow: 'PT1M' },
          Subscriptions: [
            { Name: 'all', Properties: { LockDuration: 'PT5S', MaxDeliveryCount: 3 }, Rules: [] },
            { Name: 'red', Properties: { LockDuration: 'PT5S', MaxDeliveryCount: 3 }, Rules: [rule('red', { Properties: { color: 'red' } })] },
            { Name: 'labelled', Properties: { LockDuration: 'PT5S', MaxDeliveryCount: 3 }, Rules: [rule('l', { Label: 'urgent' }), rule('c', { CorrelationId: 'c-9' })] },
            { Name: 'forward', Properties: { ForwardTo: 'topic-forward-target' }, Rules: [rule('f', { Properties: { color: 'blue' } })] },
          ],
        },
      ]),
    );
  });
  afterAll(() => bus.close());

  async function bodies(subscription: string): Promise<unknown[]> {
    const r = bus.client.createReceiver(T, subscription, { receiveMode: 'receiveAndDelete' });
    const got = await r.receiveMessages(10, { maxWaitTimeInMs: 500 });
    await r.close();
    return got.map((m) => m.body);
  }

  it('copies each message to every subscription whose filter matches', async () => {
    await bus.client.createSender(T).sendMessages([
      { body: 'r', applicationProperties: { color: 'red' } },
      { body: 'b', applicationProperties: { color: 'blue' } },
      { body: 'u', subject: 'urgent' },
      { body: 'c', correlationId: 'c-9' },
      { body: 'r', messageId: 'dup', applicationProperties: { color: 'red' } },
      { body: 'dropped', messageId: 'dup', applicationProperties: { color: 'red' } },
    ]);
    expect(await bodies('all')).toEqual(['r', 'b', 'u', 'c', 'r']);
    expect(await bodies('red')).toEqual(['r', 'r']);
    expect(await bodies('labelled')).toEqual(['u', 'c']);
    const fwd = bus.client.createReceiver('topic-forward-target', { receiveMode: 'receiveAndDelete' });
    expect((await fwd.receiveMessages(5, { maxWaitTimeInMs: 500 })).map((m) => m.body)).toEqual(['b']);
  });

  it('dead-letters per subscription', async () => {
    await bus.client.createSender(T).sendMessages({ body: 'bad', applicationProperties: { color: 'red' } });
    const r = bus.client.createReceiver(T, 'red');
    const [m] = await r.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    await r.deadLetterMessage(m as ServiceBusReceivedMessage, { deadLetterReason: 'Nope', deadLetterErrorDescription: 'd' });
    const dlq = bus.client.createReceiver(T, 'red', { subQueueType: 'deadLetter', receiveMode: 'receiveAndDelete' });
    const [d] = await dlq.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    expect([d?.body, d?.deadLetterReason, d?.deadLetterSource]).toEqual(['bad', 'Nope', `${T}/Subscriptions/red`]);
    expect(await bodies('all')).toEqual(['bad']);
  });
});
