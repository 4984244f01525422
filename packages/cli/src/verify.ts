import type { ServiceBusClient, ServiceBusReceivedMessage } from '@azure/service-bus';
import type { OrderView } from 'ledger-convoy/core';
import { compareWithExpectation, orderDifferences, type Comparison, type FoundDeadLetter } from './compare.js';
import type { Expectation } from './expectation.js';
import { FunctionApi } from './httpApi.js';
import { messageEntryId, messageIdText } from './ids.js';
import { silentProgress, type Progress } from './progress.js';
import { asCliError, openServiceBus, peekAll } from './serviceBus.js';
import type { CliSettings } from './settings.js';
import { QueueName } from 'ledger-convoy/core';

/** Options of {@link runVerify}. */
export interface VerifyOptions {
  expectation: Expectation;
  settings: CliSettings;
  /** Give up after this long. @default 120000 */
  timeoutMs?: number;
  /** Stop early once the queues are empty and nothing changed for this long. @default 10000 */
  quietMs?: number;
  /** Longest pause between looks; the first pauses are shorter (100 ms, doubling), so a run already done is seen at once. @default 1000 */
  pollMs?: number;
  /** Concurrent order reads. @default 8 */
  concurrency?: number;
  /** @default silent */
  progress?: Progress;
}

const FIRST_PAUSE_MS = 100;

/** Why {@link runVerify} stopped. */
type VerifyOutcome = 'matched' | 'settled' | 'timeout';

/** What {@link runVerify} saw last. */
export interface VerifyReport {
  ok: boolean;
  outcome: VerifyOutcome;
  comparison: Comparison;
  waitedMs: number;
}

/**
 * Looks at the orders (HTTP API) and both dead-letter queues until they match the expectation, the queues are
 * empty and nothing changed for `quietMs`, or `timeoutMs` passes. Callable in-process as well as from the CLI.
 */
export async function runVerify(options: VerifyOptions): Promise<VerifyReport> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const quietMs = options.quietMs ?? 10_000;
  const pollMs = options.pollMs ?? 1_000;
  const progress = options.progress ?? silentProgress;
  const api = new FunctionApi(options.settings);
  const client = await openServiceBus(options.settings);
  const { expectation } = options;
  const orders = new Map<string, OrderView | undefined>();
  const startedAt = Date.now();
  let lastChangeAt = startedAt;
  let lastSnapshot = '';
  let pause = FIRST_PAUSE_MS / 2;
  progress.start(expectation.orders.length + expectation.deadLetters.length, `verify ${expectation.run}`);
  try {
    for (;;) {
      // A matched order is final (its last entry is applied), so only the others are read again.
      const pending = expectation.orders.filter((o) => {
        const view = orders.get(o.orderId);
        return view === undefined || orderDifferences(o, view).length > 0;
      });
      await readOrders(
        api,
        pending.map((o) => o.orderId),
        orders,
        options.concurrency ?? 8,
      );
      const deadLetters = await readDeadLetters(client);
      const comparison = compareWithExpectation(expectation, orders, deadLetters);
      progress.update(
        comparison.orders.matched + expectation.deadLetters.length - comparison.deadLetters.missing.length,
      );
      const now = Date.now();
      if (comparison.ok) return { ok: true, outcome: 'matched', comparison, waitedMs: now - startedAt };
      const backlog = await queuesBacklog(client);
      const snapshot = JSON.stringify([comparison, backlog]);
      if (snapshot !== lastSnapshot) {
        lastSnapshot = snapshot;
        lastChangeAt = now;
      }
      if (backlog === 0 && now - lastChangeAt >= quietMs)
        return { ok: false, outcome: 'settled', comparison, waitedMs: now - startedAt };
      if (now - startedAt >= timeoutMs) return { ok: false, outcome: 'timeout', comparison, waitedMs: now - startedAt };
      pause = Math.min(pause * 2, pollMs);
      await new Promise((r) => setTimeout(r, Math.min(pause, Math.max(0, startedAt + timeoutMs - now))));
    }
  } catch (error) {
    throw asCliError(error);
  } finally {
    progress.stop();
    await client.close();
  }
}

/** Dead letters of both queues, keyed the way the expectation names them. @internal */
export async function readDeadLetters(client: ServiceBusClient): Promise<FoundDeadLetter[]> {
  const [orders, ledger] = await Promise.all([
    peekAll(client, QueueName.Orders, 'deadLetter'),
    peekAll(client, QueueName.Ledger, 'deadLetter'),
  ]);
  return [...orders.map((m) => foundDeadLetter('orders', m)), ...ledger.map((m) => foundDeadLetter('ledger', m))];
}

/** A dead letter as {@link compareWithExpectation} sees it. @internal */
export function foundDeadLetter(queue: 'orders' | 'ledger', message: ServiceBusReceivedMessage): FoundDeadLetter {
  const messageId = messageIdText(message.messageId);
  return {
    queue,
    id: queue === 'orders' ? messageEntryId(message.body, message.messageId) : messageId,
    reason: message.deadLetterReason ?? '(none)',
    messageId,
    description: message.deadLetterErrorDescription,
  };
}

/** Messages still on `ledger` and `orders` (up to a few: only zero matters). */
async function queuesBacklog(client: ServiceBusClient): Promise<number> {
  const counts = await Promise.all(
    [QueueName.Ledger, QueueName.Orders].map(async (queue) => (await peekAll(client, queue, undefined, 1)).length),
  );
  return counts.reduce((a, b) => a + b, 0);
}

/** Reads orders through `api`, `concurrency` at a time, into `into` (missing ones as `undefined`). @internal */
export async function readOrders(
  api: FunctionApi,
  ids: readonly string[],
  into: Map<string, OrderView | undefined>,
  concurrency: number,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < ids.length) {
      const id = ids[next++] as string;
      // A throttled app stays pending until the next round.
      const view = await api.getOrderUnlessBusy(id);
      if (view !== 'busy') into.set(id, view);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, ids.length)) }, worker));
}
