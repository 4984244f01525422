import type { ServiceBusMessage } from '@azure/service-bus';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deadLetters, drainSession, getOrder, startStack } from './support/stack.js';
import type { Stack } from './support/stack.js';
import { orderEntries, uid } from './support/ledgers.js';
import type { TestEntry } from './support/ledgers.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

beforeEach(() => {
  stack.cosmos.faults.clear();
});

afterAll(async () => {
  await stack?.close();
});

/** Sends order entry messages straight to `orders` (as a producer that bypasses the splitter would). */
async function sendEntries(entries: (TestEntry | ServiceBusMessage)[]): Promise<void> {
  const sender = stack.bus.createSender('orders');
  try {
    for (const entry of entries) {
      const message: ServiceBusMessage =
        'entryId' in entry
          ? { messageId: uid(entry.entryId), sessionId: entry.orderId, contentType: 'application/json', body: entry }
          : entry;
      await sender.sendMessages(message);
    }
  } finally {
    await sender.close();
  }
}

type Result = { outcome: string; sequence?: number; reason?: string; drained?: number };
const outcomes = (results: unknown[]) => (results as Result[]).map((r) => r.outcome);

describe('order processor on the Service Bus and Cosmos emulators', () => {
  it('releases its session after the message that deletes the order, and not before', async () => {
    // Prepare
    const orderId = uid('o');
    const [created, added] = orderEntries(orderId, [500]);
    const deleted: TestEntry = { entryId: `${orderId}-e3`, orderId, sequence: 3, type: 'OrderDeleted', data: {} };
    await sendEntries([created!, added!, deleted]);
    // Act
    const drained = await drainSession(stack, orderId);
    // Assess
    expect(outcomes(drained.results)).toEqual(['applied', 'applied', 'applied']);
    expect(drained.releasedAfter).toEqual([2]);
  });

  it('completes a re-sent entry with another messageId as a duplicate (rule 2)', async () => {
    // Prepare
    const orderId = uid('o');
    const [created, added] = orderEntries(orderId, [500]);
    await sendEntries([created!, added!, added!]);
    // Act
    const drained = await drainSession(stack, orderId);
    // Assess
    expect(outcomes(drained.results)).toEqual(['applied', 'applied', 'duplicate']);
    expect(drained.settled.map((s) => s.action)).toEqual(['complete', 'complete', 'complete']);
    expect((await getOrder(stack, orderId)).jsonBody).toMatchObject({ lastSequence: 2, total: 500 });
  });

  it('dead-letters a reused entryId with other content as IdempotencyKeyConflict', async () => {
    // Prepare
    const orderId = uid('o');
    const [created, added] = orderEntries(orderId, [500]);
    await sendEntries([created!, added!, { ...added!, data: { transactionId: 't-1', amount: 999 } }]);
    // Act
    const drained = await drainSession(stack, orderId);
    const dead = await deadLetters(stack, 'orders');
    // Assess
    expect(outcomes(drained.results)).toEqual(['applied', 'applied', 'deadLettered']);
    expect(dead.map((m) => [m.sessionId, m.deadLetterReason])).toEqual([[orderId, 'IdempotencyKeyConflict']]);
    expect((await getOrder(stack, orderId)).jsonBody).toMatchObject({ lastSequence: 2, total: 500 });
  });

  it('dead-letters a body that is not JSON as SchemaValidationFailed, and the order goes on', async () => {
    // Prepare
    const orderId = uid('o');
    const [created] = orderEntries(orderId, []);
    await sendEntries([
      { messageId: uid('poison'), sessionId: orderId, contentType: 'application/json', body: Buffer.from('{ nope') },
      created!,
    ]);
    // Act
    const drained = await drainSession(stack, orderId);
    const dead = await deadLetters(stack, 'orders');
    // Assess
    expect(outcomes(drained.results)).toEqual(['deadLettered', 'applied']);
    expect(dead.map((m) => m.deadLetterReason)).toEqual(['SchemaValidationFailed']);
    expect(dead[0]!.deadLetterErrorDescription).toMatch(/not valid JSON/);
  });

  it('parks an entry behind a gap, shows it in GET, and drains it when the gap fills', async () => {
    // Prepare
    const orderId = uid('o');
    const [created, second, third] = orderEntries(orderId, [100, 200]);
    await sendEntries([created!, third!]);
    const parked = await drainSession(stack, orderId);
    const viewWhileParked = await getOrder(stack, orderId);
    await sendEntries([second!]);
    // Act
    const filled = await drainSession(stack, orderId);
    // Assess
    expect(outcomes(parked.results)).toEqual(['applied', 'parked']);
    expect(viewWhileParked.jsonBody).toMatchObject({
      lastSequence: 1,
      parked: [{ sequence: 3, entryId: third!.entryId }],
    });
    expect(filled.results).toMatchObject([{ outcome: 'applied', sequence: 2, drained: 1 }]);
    expect((await getOrder(stack, orderId)).jsonBody).toMatchObject({ lastSequence: 3, total: 300, parked: [] });
  });

  it('applies an entry exactly once when its batch committed but the reply was lost: the retry meets its own record, a duplicate (rule 2)', async () => {
    // Prepare
    const orderId = uid('o');
    const [created, added] = orderEntries(orderId, [42]);
    await sendEntries([created!]);
    await drainSession(stack, orderId);
    await sendEntries([added!]);
    stack.cosmos.faults.add({ mode: 'commit-then-fail', operation: 'batch' });
    // Act
    const drained = await drainSession(stack, orderId);
    // Assess
    expect(stack.cosmos.faults.list()).toEqual([]);
    expect(outcomes(drained.results)).toEqual(['duplicate']);
    expect((await getOrder(stack, orderId)).jsonBody).toMatchObject({
      lastSequence: 2,
      total: 42,
      transactions: [{ transactionId: 't-1', amount: 42 }],
    });
  });

  it('retries through a burst of 429s and applies the entry', async () => {
    // Prepare
    const orderId = uid('o');
    const [created] = orderEntries(orderId, []);
    await sendEntries([created!]);
    stack.cosmos.faults.add({ operation: 'batch', status: 429, count: 3, retryAfterMs: 5 });
    stack.cosmos.resetCounters();
    // Act
    const drained = await drainSession(stack, orderId);
    // Assess
    expect(outcomes(drained.results)).toEqual(['applied']);
    expect(stack.cosmos.counters().batch).toBe(4);
    expect((await getOrder(stack, orderId)).jsonBody).toMatchObject({ status: 'open', lastSequence: 1 });
  });

  it('costs one Cosmos round trip per applied entry once the session knows its order', async () => {
    // Prepare
    const orderId = uid('o');
    const entries = orderEntries(orderId, [1, 2, 3, 4, 5, 6, 7, 8]);
    await sendEntries(entries.slice(0, 1));
    await drainSession(stack, orderId);
    await sendEntries(entries.slice(1));
    stack.cosmos.resetCounters();
    // Act
    const drained = await drainSession(stack, orderId);
    const counts = stack.cosmos.counters();
    // Assess
    expect(outcomes(drained.results)).toEqual(Array(8).fill('applied'));
    // The processor's own traffic: one batch per applied entry and no reads. The outbox's fast path (claim and
    // complete under ETag, after a partition query) runs beside it and touches neither batches nor point reads.
    expect(counts.batch).toBe(8);
    expect(counts.read ?? 0).toBe(0);
  });
});
