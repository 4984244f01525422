import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withOrdersContainer } from '../../src/cosmos.js';
import { startConsoleStack, type ConsoleStack } from './support/consoleStack.js';

const AT = '2025-01-01T00:00:00.000Z';
const entry = (orderId: string, sequence: number, transactionId: string) => ({
  entryId: `${orderId}-e${sequence}`,
  orderId,
  sequence,
  type: 'TransactionAmended',
  data: { transactionId, amount: 1 },
});

describe('the console order page, rejected entries (rule 11)', () => {
  let stack: ConsoleStack;
  beforeAll(async () => {
    stack = await startConsoleStack();
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  });

  it('shows the details and correction template of each rejected record, from its record', async () => {
    // Prepare: 3 and 5 rejected, each with its details in its record, status rejected
    const orderId = `o-rejected-${randomUUID().slice(0, 8)}`;
    const state = { status: 'open', customerId: 'c', currency: 'EUR', total: 0, transactionCount: 0 };
    const small = (sequence: number) => ({
      sequence,
      entryId: `${orderId}-e${sequence}`,
      requestHash: 'a'.repeat(64),
      reason: 'InvalidTransition',
      rejectedAt: AT,
      alerted: true,
    });
    await withOrdersContainer(stack.host.settings, async (container) => {
      await container.items.create({
        id: 'order',
        docType: 'order',
        orderId,
        lastSequence: 2,
        state,
        parked: [],
        updatedAt: AT,
        rejected: [small(3), small(5)],
      });
      await container.items.create({
        ...small(3),
        id: `entry:order-processor:${orderId}-e3`,
        docType: 'entry',
        status: 'rejected',
        orderId,
        description: 'why three was rejected',
        entry: entry(orderId, 3, 't-three'),
        correlationId: 'L-3',
      });
      await container.items.create({
        ...small(5),
        id: `entry:order-processor:${orderId}-e5`,
        docType: 'entry',
        status: 'rejected',
        orderId,
        description: 'why five was rejected',
        entry: entry(orderId, 5, 't-five'),
        correlationId: 'L-5',
      });
    });
    // Act
    const page = await (
      await fetch(new URL(`/orders/${encodeURIComponent(orderId)}?live=1`, stack.console.url))
    ).text();
    // Assess
    const forms = page.split('<form').filter((f) => f.includes('class="rejected"'));
    expect(forms).toHaveLength(2);
    expect(forms[0]).toContain('why three was rejected');
    expect(forms[0]).toContain('t-three');
    expect(forms[1]).toContain('why five was rejected');
    expect(forms[1]).toContain('t-five');
  });
});
