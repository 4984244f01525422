import { ServiceBusClient } from '@azure/service-bus';
import type { ServiceBusMessage, ServiceBusReceivedMessage } from '@azure/service-bus';
import { start } from '@ledger-convoy/servicebus-emulator';
import { peekEverything, receiveExactly } from '../../../../test/support/serviceBusWaits.js';

const queue = (name: string, requiresSession: boolean, lockDuration = 'PT30S') => ({
  Name: name,
  Properties: {
    DeadLetteringOnMessageExpiration: true,
    DefaultMessageTimeToLive: 'PT1H',
    DuplicateDetectionHistoryTimeWindow: 'PT1M',
    ForwardDeadLetteredMessagesTo: '',
    ForwardTo: '',
    LockDuration: lockDuration,
    MaxDeliveryCount: 5,
    RequiresDuplicateDetection: false,
    RequiresSession: requiresSession,
  },
});

/** The queues the local host tests use; each test owns its own so they cannot see each other's messages. */
export const testQueues = {
  fifo: 'fifo-sessions',
  concurrency: 'concurrent-sessions',
  release: 'released-sessions',
  autoOn: 'auto-complete-on',
  autoOff: 'auto-complete-off',
  coalesceHost: 'coalesce-host',
  coalesceRaw: 'coalesce-raw',
  drain: 'drain-plain',
  drainSessions: 'drain-sessions',
  renewal: 'renewal-sessions',
  idle: 'idle-sessions',
  handOff: 'hand-off-sessions',
  failing: 'failing-sessions',
  accepts: 'accept-sessions',
  lateActions: 'late-action-sessions',
  unsettled: 'unsettled-sessions',
} as const;

const sessionQueues = new Set<string>([
  testQueues.fifo,
  testQueues.concurrency,
  testQueues.release,
  testQueues.drainSessions,
  testQueues.renewal,
  testQueues.idle,
  testQueues.handOff,
  testQueues.failing,
  testQueues.accepts,
  testQueues.lateActions,
  testQueues.unsettled,
]);
// The shortest lock the official emulator allows, where a test outlasts it on purpose.
const shortLocks = new Set<string>([testQueues.renewal]);

/** The topic the local host tests read through subscriptions (`app.serviceBusTopic`), one subscription per test. */
export const testTopic = {
  name: 'test-events',
  /** Session-enabled, every message. */
  inOrder: 'in-order',
  /** Session-enabled, only messages whose subject (sys.Label) is `wanted`. */
  filtered: 'filtered',
  /** Without sessions, every message. */
  plain: 'plain',
  /** Session-enabled, every message: a handler that throws. */
  failing: 'failing',
} as const;

/**
 * A subscription of the test topic that takes only the messages sent `to` it (each test publishes to one), and of
 * those only the ones `filter` (SQL) selects.
 */
const subscription = (name: string, requiresSession: boolean, filter = '1=1') => ({
  Name: name,
  Properties: { ...queue(name, requiresSession).Properties },
  Rules: [
    {
      Name: 'mine',
      Properties: { FilterType: 'Sql', SqlFilter: { SqlExpression: `sys.To = '${name}' AND ${filter}` } },
    },
  ],
});

/** A Service Bus emulator on a free port with the test queues, and a client of it. */
export async function startServiceBusFixture(): Promise<{
  connectionString: string;
  client: ServiceBusClient;
  /** Messages waiting in one session, read from the emulator's own state (no receiver, no lock taken). */
  sessionDepth(queueName: string, sessionId: string): number;
  close(): Promise<void>;
}> {
  const config = {
    UserConfig: {
      Namespaces: [
        {
          Name: 'localhosttests',
          Queues: Object.values(testQueues).map((q) =>
            queue(q, sessionQueues.has(q), shortLocks.has(q) ? 'PT5S' : 'PT30S'),
          ),
          Topics: [
            {
              Name: testTopic.name,
              Properties: { DefaultMessageTimeToLive: 'PT1H' },
              Subscriptions: [
                subscription(testTopic.inOrder, true),
                subscription(testTopic.filtered, true, "sys.Label = 'wanted'"),
                subscription(testTopic.plain, false),
                subscription(testTopic.failing, true),
              ],
            },
          ],
        },
      ],
      Logging: { Type: 'Console' },
    },
  };
  const emulator = await start({ port: 0, adminPort: 0, config });
  const client = new ServiceBusClient(emulator.connectionString, {
    retryOptions: { maxRetries: 0, timeoutInMs: 10_000 },
  });
  return {
    connectionString: emulator.connectionString,
    client,
    sessionDepth: (queueName, sessionId) =>
      emulator.broker
        .stats()
        .find((e) => e.name === queueName)
        ?.sessions?.find((x) => x.id === sessionId)?.depth ?? 0,
    async close() {
      await client.close();
      await emulator.close();
    },
  };
}

/** An order entry message as the splitter sends it. */
export function entryMessage(orderId: string, sequence: number): ServiceBusMessage {
  const entryId = `${orderId}-e${sequence}`;
  return {
    body: { entryId, orderId, sequence },
    contentType: 'application/json',
    messageId: `${entryId}:0000`,
    sessionId: orderId,
    applicationProperties: { sequence },
  };
}

/** Receives (and deletes) whatever is in a queue's dead-letter sub-queue: all it holds, as peeked first. */
export async function drainDeadLetters(
  client: ServiceBusClient,
  queueName: string,
): Promise<ServiceBusReceivedMessage[]> {
  const receiver = client.createReceiver(queueName, { subQueueType: 'deadLetter', receiveMode: 'receiveAndDelete' });
  try {
    return await receiveExactly(receiver, (await peekEverything(receiver)).length, `dead letters of ${queueName}`);
  } finally {
    await receiver.close();
  }
}

/** Polls until `check` returns true. */
export async function waitFor(check: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A promise with its resolver, for holding handlers at a point. */
export function gate(): { promise: Promise<void>; open(): void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}
