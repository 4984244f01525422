import type { HttpResponseInit } from '@azure/functions';
import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { getOrder } from '../../integration/support/stack.js';
import type { Stack } from '../../integration/support/stack.js';
import type { EntryCase, EntryScenario } from '../cases/entryCase.js';
import type { DeadLetterPool } from './deadLetterPool.js';
import type { EntryBody } from './entries.js';
import { asObject, sendRaw } from './rawMessages.js';
import type { RawMessage } from './rawMessages.js';
import { drainOrder } from './runs.js';
import type { Handled } from './runs.js';

/** Everything observed while running one {@link EntryCase}. */
export interface EntryCaseRun {
  orderId: string;
  scenario: EntryScenario;
  /** The messages before + bad + behind, in queue order. */
  sent: RawMessage[];
  badIds: string[];
  /** The first session drain: every message sent. */
  first: Handled[];
  /** The view after the first drain. */
  viewBefore: HttpResponseInit;
  /** The dead letters of `badIds`, in that order (undefined where none came). */
  dead: (ServiceBusReceivedMessage | undefined)[];
  /** The resubmitted correction and what the second drain did. */
  resubmitted?: RawMessage;
  second: Handled[];
  viewAfter: HttpResponseInit;
  absent: HttpResponseInit[];
}

const valid = (entry: EntryBody, ledgerId: string): RawMessage => ({
  messageId: entry.entryId,
  sessionId: entry.orderId,
  correlationId: ledgerId,
  body: asObject(entry),
  applicationProperties: { sequence: entry.sequence, type: entry.type },
});

/**
 * Runs one case end to end: queue before + bad + behind in one session, drain it, read the bad messages' dead
 * letters, resubmit the correction the way an operator does (rule 10: `messageId = <entryId>.r1`,
 * `resubmitCount = 1`, same `sessionId` and `correlationId`), drain again and read the order.
 */
export async function runEntryCase(
  stack: Stack,
  pool: DeadLetterPool,
  testCase: EntryCase,
  orderId: string,
): Promise<EntryCaseRun> {
  const scenario = testCase.build(orderId);
  const ledgerId = `L-${orderId}`;
  const bad: RawMessage[] = scenario.bad.map((b, i) => ({
    messageId: `${orderId}-bad${i}`,
    sessionId: b.sessionId ?? orderId,
    correlationId: ledgerId,
    body: b.body,
  }));
  const sent = [
    ...scenario.before.map((e) => valid(e, ledgerId)),
    ...bad,
    ...scenario.behind.map((e) => valid(e, ledgerId)),
  ];
  await sendRaw(stack.bus, 'orders', sent);
  const first = await drainOrder(stack, orderId);
  const viewBefore = await getOrder(stack, orderId);
  const dead = await Promise.all(bad.map((b) => pool.claim(b.messageId)));

  let resubmitted: RawMessage | undefined;
  let second: Handled[] = [];
  const letter = dead[0];
  if (scenario.correction && letter) {
    resubmitted = {
      messageId: `${scenario.correction.entryId}.r1`,
      sessionId: letter.sessionId,
      correlationId: letter.correlationId === undefined ? undefined : String(letter.correlationId),
      applicationProperties: {
        sequence: scenario.correction.sequence,
        type: scenario.correction.type,
        resubmitCount: 1,
      },
      body: asObject(scenario.correction),
    };
    await sendRaw(stack.bus, 'orders', [resubmitted]);
    second = await drainOrder(stack, orderId);
  }
  const viewAfter = await getOrder(stack, orderId);
  const absent = await Promise.all((scenario.absent ?? []).map((id) => getOrder(stack, id)));
  return {
    orderId,
    scenario,
    sent,
    badIds: bad.map((b) => b.messageId),
    first,
    viewBefore,
    dead,
    resubmitted,
    second,
    viewAfter,
    absent,
  };
}

/** Runs `work` over `items` with at most `limit` in flight; every outcome is kept, failures included. */
export async function settleAll<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  const out: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      try {
        out[index] = { status: 'fulfilled', value: await work(items[index]!) };
      } catch (reason) {
        out[index] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
