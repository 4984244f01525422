import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCosmosDBHost, type CosmosDBHost } from '@ledger-convoy/local-host';
import type { RegistrationOf } from '@ledger-convoy/local-host';
import { ALL_EVENTS_SUBSCRIPTION, ORDER_EVENTS_TOPIC } from '../../src/core/index.js';
import type { OrderCloudEvent } from '../../src/core/outbox/orderCloudEvent.js';
import {
  drainSession,
  eventSubscription,
  postLedger,
  runSplitter,
  startStack,
  type Stack,
} from '../integration/support/stack.js';
import { interleave, orderEntries, uid, type TestEntry } from '../integration/support/ledgers.js';
import { peekEverything, until } from '../support/serviceBusWaits.js';
import { setEnv } from './support/eventually.js';

/** A downstream that wants only added transactions, declared as the entity file declares one: a SQL filter on sys.Label. */
const ADDED_ONLY = 'transactions-added';
/** A downstream that wants amendments and deletions, with one filter over two types. */
const CHANGES = 'amendments-and-deletions';

let stack: Stack;
let relay: CosmosDBHost;
let restoreEnv: () => void;

beforeAll(async () => {
  restoreEnv = setEnv({ COSMOS_DATABASE: 'convoy', COSMOS_CONTAINER: 'orders', OUTBOX_RETRY_BUDGET: 'PT5S' });
  stack = await startStack({
    eventSubscriptions: [
      eventSubscription(ADDED_ONLY, "sys.Label = 'convoy.order.transaction-added'"),
      eventSubscription(CHANGES, "sys.Label IN ('convoy.order.transaction-amended', 'convoy.order.deleted')"),
    ],
  });
  const registrations = stack.app.functions.filter(
    (r): r is RegistrationOf<'cosmosDB'> => r.kind === 'cosmosDB' && r.name === 'outboxRelay',
  );
  relay = await startCosmosDBHost({
    functions: registrations,
    settings: process.env,
    logger: pino({ level: 'silent' }),
  });
});

afterAll(async () => {
  await relay?.close();
  await stack?.close();
  restoreEnv?.();
});

/** The messages a subscription holds for one order, in the order its session delivers them (peeked). */
async function sessionOf(subscription: string, orderId: string): Promise<ServiceBusReceivedMessage[]> {
  const receiver = await stack.bus.acceptSession(ORDER_EVENTS_TOPIC, subscription, orderId);
  try {
    return await peekEverything(receiver);
  } finally {
    await receiver.close();
  }
}

const bodyOf = (m: ServiceBusReceivedMessage) => m.body as OrderCloudEvent;
const seen = (messages: ServiceBusReceivedMessage[]) =>
  messages.map((m) => [bodyOf(m).data.sequence, m.subject] as const);

/** An order with every entry type: created, three adds, two amendments between them, then deleted. */
function busyOrder(orderId: string): TestEntry[] {
  const [created, ...adds] = orderEntries(orderId, [100, 200, 300]);
  const amend = (sequence: number, transactionId: string, amount: number): TestEntry => ({
    entryId: `${orderId}-${sequence}`,
    orderId,
    sequence,
    type: 'TransactionAmended',
    data: { transactionId, amount },
  });
  const renumbered = adds.map((e, i) => ({ ...e, entryId: `${orderId}-${[2, 4, 6][i]}`, sequence: [2, 4, 6][i]! }));
  return [
    created!,
    renumbered[0]!,
    amend(3, 't-1', 150),
    renumbered[1]!,
    amend(5, 't-2', 250),
    renumbered[2]!,
    { entryId: `${orderId}-7`, orderId, sequence: 7, type: 'OrderDeleted', data: {} },
  ];
}

describe('subscriptions of order-events with a SQL filter on sys.Label (the CloudEvents type)', () => {
  it('receive only the events they name, each order in sequence order, while all receives every one', async () => {
    // Prepare: two orders with every entry type, interleaved in one ledger.
    const a = uid('o');
    const b = uid('o');
    await postLedger(stack, JSON.stringify({ ledgerId: uid('L'), entries: interleave(busyOrder(a), busyOrder(b)) }));
    await runSplitter(stack);
    // Act: the processor commits each order; the relay publishes to the topic.
    await drainSession(stack, a);
    await drainSession(stack, b);
    await until(async () => (await sessionOf(ALL_EVENTS_SUBSCRIPTION, a)).length === 7, 'seven events of a on all');
    await until(async () => (await sessionOf(ALL_EVENTS_SUBSCRIPTION, b)).length === 7, 'seven events of b on all');
    // Assess
    for (const orderId of [a, b]) {
      const all = await sessionOf(ALL_EVENTS_SUBSCRIPTION, orderId);
      expect(seen(all)).toEqual([
        [1, 'convoy.order.created'],
        [2, 'convoy.order.transaction-added'],
        [3, 'convoy.order.transaction-amended'],
        [4, 'convoy.order.transaction-added'],
        [5, 'convoy.order.transaction-amended'],
        [6, 'convoy.order.transaction-added'],
        [7, 'convoy.order.deleted'],
      ]);
      for (const m of all) expect(m.subject).toBe(bodyOf(m).type);
      // The relay publishes each event once, to the topic: every subscription that takes it gets the same message.
      const added = await sessionOf(ADDED_ONLY, orderId);
      expect(seen(added)).toEqual([
        [2, 'convoy.order.transaction-added'],
        [4, 'convoy.order.transaction-added'],
        [6, 'convoy.order.transaction-added'],
      ]);
      const changes = await sessionOf(CHANGES, orderId);
      expect(seen(changes)).toEqual([
        [3, 'convoy.order.transaction-amended'],
        [5, 'convoy.order.transaction-amended'],
        [7, 'convoy.order.deleted'],
      ]);
      const byId = new Map(all.map((m) => [m.messageId, m.body]));
      for (const m of [...added, ...changes]) expect(m.body).toEqual(byId.get(m.messageId));
    }
  });
});
