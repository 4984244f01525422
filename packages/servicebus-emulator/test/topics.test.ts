import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peekEverything, receiveExactly } from '../../../test/support/serviceBusWaits.js';
import { configWith, queue, startBus } from './helpers.js';
import type { TestBus } from './helpers.js';

const T = 'topic-orders';
const rule = (name: string, filter: Record<string, unknown>): unknown => ({
  Name: name,
  Properties: { FilterType: 'Correlation', CorrelationFilter: filter },
});

describe('topics, subscriptions and correlation filters', () => {
  let bus: TestBus;
  beforeAll(async () => {
    bus = await startBus(
      configWith(
        [queue('topic-forward-target')],
        [
          {
            Name: T,
            Properties: { RequiresDuplicateDetection: true, DuplicateDetectionHistoryTimeWindow: 'PT1M' },
            Subscriptions: [
              { Name: 'all', Properties: { LockDuration: 'PT5S', MaxDeliveryCount: 3 }, Rules: [] },
              {
                Name: 'red',
                Properties: { LockDuration: 'PT5S', MaxDeliveryCount: 3 },
                Rules: [rule('red', { Properties: { color: 'red' } })],
              },
              {
                Name: 'labelled',
                Properties: { LockDuration: 'PT5S', MaxDeliveryCount: 3 },
                Rules: [rule('l', { Label: 'urgent' }), rule('c', { CorrelationId: 'c-9' })],
              },
              {
                Name: 'forward',
                Properties: { ForwardTo: 'topic-forward-target' },
                Rules: [rule('f', { Properties: { color: 'blue' } })],
              },
            ],
          },
        ],
      ),
    );
  });
  afterAll(() => bus.close());

  /** Takes what `subscription` holds, `count` messages, and makes sure nothing else is there. */
  async function bodies(subscription: string, count: number): Promise<unknown[]> {
    const r = bus.client.createReceiver(T, subscription, { receiveMode: 'receiveAndDelete' });
    const got = await receiveExactly(r, count, `messages on ${subscription}`);
    const rest = await peekEverything(r);
    await r.close();
    return [...got, ...rest].map((m) => m.body);
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
    expect(await bodies('all', 5)).toEqual(['r', 'b', 'u', 'c', 'r']);
    expect(await bodies('red', 2)).toEqual(['r', 'r']);
    expect(await bodies('labelled', 2)).toEqual(['u', 'c']);
    const fwd = bus.client.createReceiver('topic-forward-target', { receiveMode: 'receiveAndDelete' });
    expect([...(await receiveExactly(fwd, 1)), ...(await peekEverything(fwd))].map((m) => m.body)).toEqual(['b']);
  });

  it('dead-letters per subscription', async () => {
    await bus.client.createSender(T).sendMessages({ body: 'bad', applicationProperties: { color: 'red' } });
    const r = bus.client.createReceiver(T, 'red');
    const [m] = await receiveExactly(r, 1);
    await r.deadLetterMessage(m as ServiceBusReceivedMessage, {
      deadLetterReason: 'Nope',
      deadLetterErrorDescription: 'd',
    });
    const dlq = bus.client.createReceiver(T, 'red', { subQueueType: 'deadLetter', receiveMode: 'receiveAndDelete' });
    const [d] = await receiveExactly(dlq, 1);
    expect([d?.body, d?.deadLetterReason, d?.deadLetterSource]).toEqual(['bad', 'Nope', undefined]);
    expect(await bodies('all', 1)).toEqual(['bad']);
  });
});
