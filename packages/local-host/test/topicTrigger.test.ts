import { describe, expect, it } from 'vitest';
import type { InvocationContext, ServiceBusTopicHandler } from '@azure/functions';
import type { RegistrationOf } from '../src/registrations.js';
import { useServiceBusHost } from './support/hostHarness.js';
import { entryMessage, testTopic, waitFor } from './support/serviceBusFixture.js';

const sb = useServiceBusHost({ sessionIdleTimeoutMs: 300 });

/** A trigger on a subscription of the test topic, as a downstream registers one (`app.serviceBusTopic`). */
function topicFunction(
  subscriptionName: string,
  handler: ServiceBusTopicHandler,
  isSessionsEnabled = true,
): RegistrationOf<'serviceBusTopic'> {
  return {
    kind: 'serviceBusTopic',
    name: `test-${subscriptionName}`,
    options: {
      connection: 'ServiceBusConnection',
      topicName: testTopic.name,
      subscriptionName,
      isSessionsEnabled,
      handler,
    },
  };
}

/** Sends entries 1..n of each order to the topic `to` one subscription, orders interleaved, each with `subject`. */
async function publish(to: string, orders: string[], count: number, subject = (sequence: number) => `seq-${sequence}`) {
  const sender = sb.client.createSender(testTopic.name);
  const sequences = Array.from({ length: count }, (_, i) => i + 1);
  await sender.sendMessages(
    sequences.flatMap((sequence) =>
      orders.map((o) => ({ ...entryMessage(o, sequence), subject: subject(sequence), to })),
    ),
  );
  await sender.close();
}

describe('topic triggers (app.serviceBusTopic) in the local host', () => {
  it('applies each session of a subscription strictly in order, one message at a time, the body parsed and the trigger metadata given, and completes each', async () => {
    // Prepare: three orders, interleaved.
    const orders = ['t-a', 't-b', 't-c'];
    await publish(testTopic.inOrder, orders, 4);
    const seen = new Map<string, number[]>();
    const active = new Set<string>();
    let overlap = false;
    let metadata: InvocationContext['triggerMetadata'];
    // Act
    const lines = sb.startHost(
      topicFunction(testTopic.inOrder, async (message, context) => {
        const { orderId, sequence } = message as { orderId: string; sequence: number };
        if (active.has(orderId)) overlap = true;
        active.add(orderId);
        await new Promise((resolve) => setTimeout(resolve, 5));
        seen.set(orderId, [...(seen.get(orderId) ?? []), sequence]);
        metadata ??= context.triggerMetadata;
        active.delete(orderId);
      }),
      { maxConcurrentSessions: 2 },
    );
    const processed = () => lines.filter((l) => l.msg === 'message processed');
    await waitFor(() => processed().length === 12, 15_000, '12 messages processed');
    // Assess: in order per session, never two of one session at once; completed by the host (auto-complete).
    for (const order of orders) expect(seen.get(order)).toEqual([1, 2, 3, 4]);
    expect(overlap).toBe(false);
    expect(processed().every((l) => l.outcome === 'completed')).toBe(true);
    expect(processed()[0]).toMatchObject({
      function: `test-${testTopic.inOrder}`,
      queue: `${testTopic.name}/Subscriptions/${testTopic.inOrder}`,
    });
    expect(metadata).toMatchObject({ sessionId: expect.stringMatching(/^t-[abc]$/), subject: 'seq-1' });
    const left = sb.client.createReceiver(testTopic.name, testTopic.inOrder);
    expect(await left.peekMessages(10)).toEqual([]);
    await left.close();
  });

  it('gets only what the subscription filter selects (sys.Label)', async () => {
    // Prepare: odd sequences are `wanted`, even ones are not.
    await publish(testTopic.filtered, ['f-1'], 6, (sequence) => (sequence % 2 === 1 ? 'wanted' : 'other'));
    const seen: number[] = [];
    // Act
    const lines = sb.startHost(
      topicFunction(testTopic.filtered, async (message) => {
        seen.push((message as { sequence: number }).sequence);
      }),
    );
    await waitFor(() => lines.filter((l) => l.msg === 'message processed').length === 3, 15_000, 'three messages');
    // Assess
    expect(seen).toEqual([1, 3, 5]);
  });

  it('runs a subscription without sessions as the host runs a queue without them', async () => {
    await publish(testTopic.plain, ['p-1'], 3);
    const seen: number[] = [];
    const lines = sb.startHost(
      topicFunction(
        testTopic.plain,
        async (message) => {
          seen.push((message as { sequence: number }).sequence);
        },
        false,
      ),
      { maxConcurrentCalls: 1 },
    );
    await waitFor(() => lines.filter((l) => l.msg === 'message processed').length === 3, 15_000, 'three messages');
    expect(seen.sort()).toEqual([1, 2, 3]);
  });

  it('abandons the message of a handler that throws and stays on the session, order kept', async () => {
    await publish(testTopic.failing, ['x-1'], 2);
    const attempts: number[] = [];
    const lines = sb.startHost(
      topicFunction(testTopic.failing, async (message) => {
        const { sequence } = message as { sequence: number };
        attempts.push(sequence);
        if (sequence === 1 && attempts.length === 1) throw new Error('downstream unavailable');
      }),
    );
    await waitFor(() => lines.filter((l) => l.outcome === 'completed').length === 2, 15_000, 'both completed');
    expect(attempts).toEqual([1, 1, 2]);
    expect(lines.filter((l) => l.msg === 'message processed').map((l) => l.outcome)).toEqual([
      'abandoned',
      'completed',
      'completed',
    ]);
  });

  it('says, naming the function and the entity, when the subscription does not exist', async () => {
    const lines = sb.startHost(topicFunction('no-such-subscription', async () => undefined));
    await waitFor(() => lines.some((l) => l.level === 50), 15_000, 'an error line');
    const errors = lines.filter((l) => l.level === 50);
    expect(errors[0]?.msg).toBe(
      'function test-no-such-subscription: the topic subscription test-events/Subscriptions/no-such-subscription does not exist; declare it in the entity file (infra/servicebus.config.json) and start again',
    );
  });
});
