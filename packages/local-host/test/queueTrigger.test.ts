import { describe, expect, it } from 'vitest';
import type { InvocationContext, ServiceBusQueueHandler } from '@azure/functions';
import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import type { RegistrationOf } from '../src/registrations.js';
import type { LocalServiceBusMessageActions } from '../src/servicebus/messageActions.js';
import { useServiceBusHost } from './support/hostHarness.js';
import { peekEverything, receiveExactly } from '../../../test/support/serviceBusWaits.js';
import { drainDeadLetters, gate, testQueues, waitFor } from './support/serviceBusFixture.js';

const sb = useServiceBusHost();

const queueFunction = (
  queueName: string,
  handler: (input: never, context: InvocationContext) => Promise<void> | void,
  extra: Partial<RegistrationOf<'serviceBusQueue'>['options']> = {},
): RegistrationOf<'serviceBusQueue'> => ({
  kind: 'serviceBusQueue',
  name: `test-${queueName}`,
  options: { connection: 'ServiceBusConnection', queueName, handler: handler as ServiceBusQueueHandler, ...extra },
});

async function send(queueName: string, bodies: unknown[]): Promise<void> {
  const sender = sb.client.createSender(queueName);
  await sender.sendMessages(bodies.map((body, i) => ({ body, messageId: `m-${i}`, contentType: 'application/json' })));
  await sender.close();
}

/** Whatever the queue still holds, locked or not, read from the broker (peeked). */
async function remaining(queueName: string): Promise<ServiceBusReceivedMessage[]> {
  const receiver = sb.client.createReceiver(queueName);
  try {
    return await peekEverything(receiver);
  } finally {
    await receiver.close();
  }
}

describe('non-session triggers in the local host', () => {
  it('auto-completes on success and abandons on a throw, so the message comes back with a higher delivery count', async () => {
    // Prepare
    await send(testQueues.autoOn, [{ ledgerId: 'L-1' }]);
    const attempts: { body: unknown; deliveryCount: unknown }[] = [];
    // Act: a plain handler (no sdkBinding) that fails the first delivery.
    const lines = sb.startHost(
      queueFunction(testQueues.autoOn, (body: never, context) => {
        attempts.push({ body, deliveryCount: context.triggerMetadata?.deliveryCount });
        if (attempts.length === 1) throw new Error('transient');
      }),
      { autoCompleteMessages: true },
    );
    await waitFor(() => lines.filter((l) => l.msg === 'message processed').length === 2, 10_000, 'two attempts');
    // Assess
    expect(attempts).toEqual([
      { body: { ledgerId: 'L-1' }, deliveryCount: 1 },
      { body: { ledgerId: 'L-1' }, deliveryCount: 2 },
    ]);
    expect(lines.filter((l) => l.msg === 'message processed').map((l) => l.outcome)).toEqual([
      'abandoned',
      'completed',
    ]);
    await sb.closeHost();
    expect(await remaining(testQueues.autoOn)).toHaveLength(0);
  });

  it('leaves the message alone when auto-complete is off and the handler does not settle', async () => {
    await send(testQueues.autoOff, [{ n: 1 }]);
    let calls = 0;
    const lines = sb.startHost(
      queueFunction(
        testQueues.autoOff,
        () => {
          calls += 1;
        },
        { autoCompleteMessages: false },
      ),
      { autoCompleteMessages: true },
    );
    await waitFor(() => calls === 1, 10_000, 'the call');
    await waitFor(() => lines.some((l) => l.outcome === 'unsettled'), 5_000, 'the log line');
    await sb.closeHost();
    // Neither completed nor abandoned: still in the queue (locked until its lock expires, as on Azure).
    expect((await remaining(testQueues.autoOff)).map((m) => m.messageId)).toEqual(['m-0']);
    expect(await drainDeadLetters(sb.client, testQueues.autoOff)).toHaveLength(0);
    expect(lines.find((l) => l.outcome === 'unsettled')).toMatchObject({ level: 40, entryId: 'm-0' });
  });

  it('settles a dead-letter and a complete issued in the same tick on one receiver with their own outcomes', async () => {
    // Prepare: two concurrent handlers that settle at exactly the same moment.
    await send(testQueues.coalesceHost, [{ kind: 'poison' }, { kind: 'good' }]);
    const both = gate();
    let arrived = 0;
    sb.startHost(
      queueFunction(
        testQueues.coalesceHost,
        async ({
          messages: message,
          actions,
        }: {
          messages: ServiceBusReceivedMessage;
          actions: LocalServiceBusMessageActions;
        }) => {
          arrived += 1;
          if (arrived === 2) both.open();
          await both.promise;
          if ((message.body as { kind: string }).kind === 'poison') {
            await actions.deadletter(message, undefined, { value: 'SchemaValidationFailed' }, 'bad body');
          } else {
            await actions.complete(message);
          }
        },
        { sdkBinding: true, autoCompleteMessages: false },
      ),
      { maxConcurrentCalls: 2 },
    );
    await waitFor(() => arrived === 2, 10_000, 'both messages');
    await sb.closeHost();
    // Assess
    const deadLetters = await drainDeadLetters(sb.client, testQueues.coalesceHost);
    expect(deadLetters.map((m) => [m.body, m.deadLetterReason, m.deadLetterErrorDescription])).toEqual([
      [{ kind: 'poison' }, 'SchemaValidationFailed', 'bad body'],
    ]);
    expect(await remaining(testQueues.coalesceHost)).toHaveLength(0);
  });

  it('(control) shows why: the same two settlements issued together on a bare SDK receiver collapse into one outcome', async () => {
    await send(testQueues.coalesceRaw, [{ kind: 'poison' }, { kind: 'good' }]);
    const receiver = sb.client.createReceiver(testQueues.coalesceRaw);
    const messages = await receiveExactly(receiver, 2);
    const [poison, good] = messages as [ServiceBusReceivedMessage, ServiceBusReceivedMessage];
    await Promise.all([
      receiver.deadLetterMessage(poison, {
        deadLetterReason: 'SchemaValidationFailed',
        deadLetterErrorDescription: 'bad body',
      }),
      receiver.completeMessage(good),
    ]);
    await receiver.close();
    const deadLetters = await drainDeadLetters(sb.client, testQueues.coalesceRaw);
    // Both were dead-lettered: the complete was lost to rhea's coalescing.
    expect(deadLetters).toHaveLength(2);
  });

  it('drains on close: in-flight handlers finish and settle before the receiver closes', async () => {
    await send(testQueues.drain, [{ n: 1 }]);
    const hold = gate();
    const events: string[] = [];
    let started = false;
    const lines = sb.startHost(
      queueFunction(testQueues.drain, async () => {
        started = true;
        await hold.promise;
        events.push('handler returned');
      }),
      { autoCompleteMessages: true },
    );
    await waitFor(() => started, 10_000, 'the message');
    const outcomes = () => lines.filter((l) => l.msg === 'message processed').map((l) => l.outcome);
    const closing = sb.closeHost().then(() => void events.push(`host closed (processed: ${outcomes().join(', ')})`));
    // A look at the broker while the handler holds: its message is still there (locked), and close has not returned.
    expect((await remaining(testQueues.drain)).map((m) => m.messageId)).toEqual(['m-0']);
    events.push('handler released');
    hold.open();
    await closing;
    // Assess: close returned only after the handler, and the auto-complete that followed it, went through.
    expect(events).toEqual(['handler released', 'handler returned', 'host closed (processed: completed)']);
    expect(await remaining(testQueues.drain)).toHaveLength(0);
  });
});
