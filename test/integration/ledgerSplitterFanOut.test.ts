import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { deadLetters, peekOrderEntries, runSplitter, sendLedger, startStack } from './support/stack.js';
import type { Stack } from './support/stack.js';
import { interleave, orderEntries, uid } from './support/ledgers.js';
import { nextWhileAny } from '../support/serviceBusWaits.js';

// `orders` takes messages of at most 4 KB here, so a ledger of a few dozen entries needs several batches.
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ queueProperties: { orders: { MaxMessageSizeInKilobytes: 4 } } });
});

afterAll(async () => {
  await stack?.close();
});

describe('ledger splitter against a queue with a small maximum message size', () => {
  it('fans a ledger that needs several batches out whole, in ledger order, in as few sends as fit', async () => {
    // Prepare: ~40 entries of a few hundred bytes each against 4 KB batches.
    const orders = Array.from({ length: 4 }, () => uid('o'));
    const entries = interleave(
      ...orders.map((orderId) =>
        orderEntries(
          orderId,
          Array.from({ length: 9 }, (_, i) => i + 1),
        ),
      ),
    );
    const ledgerId = uid('L');
    await sendLedger(stack, { ledgerId, entries }, ledgerId);
    const log = vi.spyOn(stack.app.context().telemetry, 'log');
    try {
      // Act
      const split = await runSplitter(stack);
      const fanned = await peekOrderEntries(stack);
      // Assess
      expect(split.settled).toEqual([{ action: 'complete', messageId: ledgerId }]);
      expect(fanned.filter((m) => orders.includes(m.sessionId ?? '')).map((m) => m.entryId)).toEqual(
        entries.map((e) => e.entryId),
      );
      const done = log.mock.calls.find(([, message]) => message === 'ledger fanned out')?.[2];
      expect(done).toMatchObject({ ledgerId, entries: 40 });
      const batches = (done as { batches: number }).batches;
      // Each entry message is a few hundred bytes: more than one batch is needed, and no batch holds a single one.
      expect(batches).toBeGreaterThan(1);
      expect(batches).toBeLessThan(20);
    } finally {
      log.mockRestore();
      await drainOrders(orders);
    }
  });

  it("logs an invalid ledger under its body's ledgerId, not the transport messageId", async () => {
    // Prepare
    const ledgerId = uid('L');
    const messageId = uid('transport');
    await sendLedger(stack, { ledgerId, entries: [] }, messageId);
    const log = vi.spyOn(stack.app.context().telemetry, 'log');
    try {
      // Act
      const split = await runSplitter(stack);
      await deadLetters(stack, 'ledger');
      // Assess
      expect(split.settled).toMatchObject([{ action: 'deadletter', reason: 'SchemaValidationFailed' }]);
      const line = log.mock.calls.find(([, message]) => message === 'ledger dead-lettered')?.[2];
      expect(line).toMatchObject({ ledgerId, messageId });
    } finally {
      log.mockRestore();
    }
  });
});

async function drainOrders(orderIds: readonly string[]): Promise<void> {
  for (const orderId of orderIds) {
    const receiver = await stack.bus.acceptSession('orders', orderId);
    for (let message = await nextWhileAny(receiver); message; message = await nextWhileAny(receiver))
      await receiver.completeMessage(message);
    await receiver.close();
  }
}
