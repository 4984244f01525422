import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readExpectation } from '../src/expectation.js';

const counts = {
  orders: 1,
  entries: 2,
  ledgers: 1,
  resentLedgers: 0,
  duplicateEntries: 0,
  conflicts: 0,
  poison: 0,
  gaps: 0,
};
const order = {
  orderId: 'o-1',
  status: 'open',
  customerId: 'c-1',
  currency: 'EUR',
  lastSequence: 2,
  total: 5,
  transactions: [{ transactionId: 't-1', amount: 5 }],
};

async function fileOf(orders: object[]): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'convoy-expectation-')), 'expected.json');
  const expectation = {
    version: 1,
    run: 'r',
    seed: 1,
    createdAt: '2026-12-08T00:00:00.000Z',
    counts,
    orders,
    deadLetters: [],
  };
  await writeFile(path, JSON.stringify(expectation));
  return path;
}

describe('the expectation file', () => {
  it('reads an order and its transactions whole', async () => {
    // Act
    const expectation = await readExpectation(await fileOf([order]));
    // Assess
    expect(expectation.orders).toEqual([order]);
  });

  it('refuses a field it does not know instead of dropping it, so verify never compares less than send expected', async () => {
    // Prepare: a transaction field a new entry type writes, which the reader would otherwise strip
    const path = await fileOf([{ ...order, transactions: [{ transactionId: 't-1', amount: 5, reversed: true }] }]);
    // Act
    const read = readExpectation(path);
    // Assess
    await expect(read).rejects.toThrow(/orders\.0\.transactions\.0/);
  });
});
