import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { foldOrderEvent, type OrderEventData } from '../../../src/core/index.js';
import { entrySchema, entryTypeOf } from '../../../src/core/entryTypes/registry.js';

/** Every registered type, from the registry itself: a type added there is covered here without a change. */
const TYPES = entrySchema.options.map((schema) => schema.shape.type.value);

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => join(e.parentPath, e.name));
}

const event = (sequence: number, type: string, change: object, order: object): OrderEventData =>
  ({ orderId: 'o-1', sequence, entryId: `e-${sequence}`, type, change, order }) as OrderEventData;
const summary = { status: 'open', customerId: 'c', currency: 'EUR', total: 0, transactionCount: 0 };

describe('an entry type in one place', () => {
  it('is named as a string only in its module: the pipeline never compares type names', async () => {
    // Prepare
    const files = (await sources('src')).filter((f) => !f.startsWith(join('src', 'core', 'entryTypes')));
    // Act
    const named: string[] = [];
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      for (const type of TYPES) if (text.includes(`'${type}'`) || text.includes(`"${type}"`)) named.push(file);
    }
    // Assess
    expect(named).toEqual([]);
  });

  it('gives each type one event type of its own', () => {
    // Act
    const eventTypes = TYPES.map((t) => entryTypeOf(t)?.eventType);
    // Assess
    expect(eventTypes).toEqual([
      'convoy.order.created',
      'convoy.order.transaction-added',
      'convoy.order.transaction-amended',
      'convoy.order.deleted',
    ]);
    expect(entryTypeOf('OrderRenamed')).toBeUndefined();
  });
});

describe('foldOrderEvent, the consumer fold', () => {
  const created = event(1, 'OrderCreated', { customerId: 'c', currency: 'EUR' }, { ...summary, lastSequence: 1 });
  const added = event(
    2,
    'TransactionAdded',
    { transactionId: 't', amount: 5 },
    {
      ...summary,
      lastSequence: 2,
      total: 5,
      transactionCount: 1,
    },
  );

  it('folds in sequence order and takes a repeat as changing nothing', () => {
    // Act
    const once = [created, added].reduce(foldOrderEvent, undefined);
    const again = foldOrderEvent(once, added);
    // Assess
    expect(once).toEqual({
      orderId: 'o-1',
      status: 'open',
      customerId: 'c',
      currency: 'EUR',
      lastSequence: 2,
      total: 5,
      transactions: [{ transactionId: 't', amount: 5 }],
    });
    expect(again).toBe(once);
  });

  it('throws, never skips, on a gap, an unknown type, a contradicting change or summary', () => {
    // Prepare
    const open = foldOrderEvent(undefined, created);
    // Act + Assess
    expect(() => foldOrderEvent(undefined, added)).toThrow(/sequence 1 was never folded/);
    expect(() => foldOrderEvent(open, event(2, 'OrderRenamed', {}, summary))).toThrow(
      /unknown entry type OrderRenamed/,
    );
    const amendUnknown = event(2, 'TransactionAmended', { transactionId: 'x', amount: 1, previousAmount: 0 }, summary);
    expect(() => foldOrderEvent(open, amendUnknown)).toThrow(/amends transaction x/);
    expect(() => foldOrderEvent(open, { ...added, order: { ...added.order, total: 6 } })).toThrow(/is not the fold's/);
  });
});
