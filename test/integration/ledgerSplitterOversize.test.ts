import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadLetters, peekOrderEntries, runSplitter, sendLedger, startStack } from './support/stack.js';
import type { Stack } from './support/stack.js';
import { orderEntries, uid } from './support/ledgers.js';

// `orders` takes messages of at most 1 KB here: an entry with its fields at the contract's bounds outgrows that
// while its ledger stays far under the ledger's own 256 KB limit (no real queue is that small: the splitter's
// refusal is a guard, proven here).
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ queueProperties: { orders: { MaxMessageSizeInKilobytes: 1 } } });
});

afterAll(async () => {
  await stack?.close();
});

describe('ledger splitter against a queue whose messages are smaller than an entry can be', () => {
  it('dead-letters a ledger whose entry cannot fit any message, naming the entry, and sends none of its entries', async () => {
    // Prepare: entries that fit come first, so a splitter that sends while it packs would already have sent them.
    const small = uid('o');
    // Every field of this entry at its bound: orderId 128, entryId 100, customerId 100 characters.
    const large = uid('o').padEnd(128, 'x');
    const [created] = orderEntries(large, []);
    const huge = { ...created!, entryId: 'e'.repeat(100), data: { customerId: 'c'.repeat(100), currency: 'EUR' } };
    const entries = [...orderEntries(small, [1, 2, 3]), huge, ...orderEntries(small, [4], { from: 6 })];
    const ledgerId = uid('L');
    await sendLedger(stack, { ledgerId, entries }, ledgerId);
    // Act
    const split = await runSplitter(stack);
    const dead = await deadLetters(stack, 'ledger');
    const fanned = await peekOrderEntries(stack);
    // Assess
    expect(split.settled).toMatchObject([{ action: 'deadletter', reason: 'SchemaValidationFailed' }]);
    expect(split.settled[0]!.description).toContain(`entries[4] (entryId ${huge.entryId})`);
    expect(split.settled[0]!.description).toMatch(/maximum message size \(\d+ bytes\)/);
    expect(dead.map((m) => m.messageId)).toEqual([ledgerId]);
    expect(fanned.filter((m) => m.sessionId === small || m.sessionId === large)).toEqual([]);
  });
});
