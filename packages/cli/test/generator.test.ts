import { describe, expect, it } from 'vitest';
import { DeadLetterReason, ledgerSchema, type Entry, type Ledger } from 'ledger-convoy/core';
import { generateRun, type GenerateOptions } from '../src/generator.js';
import { isCliError } from '../src/errors.js';

const base: GenerateOptions = {
  orders: 12,
  entries: 6,
  ledgers: 4,
  duplicates: 0.2,
  conflicts: 3,
  poison: 8,
  gaps: 4,
  seed: 42,
};

function ledgersOf(run: ReturnType<typeof generateRun>): { ledger: Ledger; resend: boolean }[] {
  return run.sends.flatMap((s) => (s.kind === 'ledger' ? [{ ledger: s.ledger, resend: s.resend }] : []));
}

describe('generateRun', () => {
  it('gives the same run for the same seed and another run for another seed', () => {
    expect(generateRun(base)).toEqual(generateRun(base));
    expect(generateRun({ ...base, seed: 43 }).entries).not.toEqual(generateRun(base).entries);
  });

  it('generates the requested numbers of orders, entries, conflicts and poison', () => {
    const run = generateRun(base);
    expect(run.orderIds).toHaveLength(12);
    expect(run.entries).toHaveLength(12 * 6);
    expect(run.counts).toMatchObject({
      orders: 12,
      entries: 72,
      conflicts: 3,
      poison: 8,
      gaps: 4,
      duplicateEntries: Math.round(0.2 * 72),
    });
    expect(run.sends.filter((s) => s.kind === 'poison')).toHaveLength(8);
    const reasons = run.deadLetters.map((d) => d.reason);
    expect(reasons.filter((r) => r === DeadLetterReason.IdempotencyKeyConflict)).toHaveLength(3);
    expect(reasons.filter((r) => r === DeadLetterReason.SchemaValidationFailed)).toHaveLength(8);
    expect(run.deadLetters.filter((d) => d.queue === 'ledger')).toHaveLength(2);
  });

  it('starts every order with OrderCreated and never puts anything after OrderDeleted', () => {
    const run = generateRun({ ...base, deleteRatio: 0.5 });
    for (const orderId of run.orderIds) {
      const list = run.entries.filter((e) => e.orderId === orderId);
      expect(list.map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(list[0]?.type).toBe('OrderCreated');
      expect(list.slice(0, -1).some((e) => e.type === 'OrderDeleted')).toBe(false);
    }
    expect(run.entries.some((e) => e.type === 'OrderDeleted')).toBe(true);
  });

  it('produces only ledgers the core ledger schema accepts', () => {
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      for (const shape of [base, { ...base, ledgers: 1, gaps: 0 }, { ...base, ledgers: 30, duplicates: 1 }]) {
        for (const { ledger } of ledgersOf(generateRun({ ...shape, seed }))) {
          const parsed = ledgerSchema.safeParse(ledger);
          expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
        }
      }
    }
  });

  it('re-sends whole ledgers and entries, each copy identical to its original', () => {
    const run = generateRun(base);
    const ledgers = ledgersOf(run);
    const resent = ledgers.filter((l) => l.resend);
    expect(resent).toHaveLength(run.counts.resentLedgers);
    expect(run.counts.resentLedgers).toBeGreaterThan(0);
    for (const r of resent) {
      const first = ledgers.findIndex((l) => l.ledger.ledgerId === r.ledger.ledgerId);
      expect(ledgers.indexOf(r)).toBeGreaterThan(first);
    }
    const originals = new Map(run.entries.map((e) => [e.entryId, JSON.stringify(e)]));
    const copies = ledgers.filter((l) => !l.resend).flatMap((l) => l.ledger.entries);
    const identicalCopies = copies.length - run.entries.length - run.counts.conflicts;
    expect(identicalCopies).toBe(run.counts.duplicateEntries);
    const conflicting = copies.filter((e) => originals.get(e.entryId) !== JSON.stringify(e));
    expect(conflicting.map((e) => e.entryId).sort()).toEqual(
      run.deadLetters
        .filter((d) => d.cause === 'conflict')
        .map((d) => d.id)
        .sort(),
    );
  });

  it('sends a gap order an entry in an earlier ledger than the entry before it', () => {
    const run = generateRun({ ...base, duplicates: 0, conflicts: 0 });
    const ledgerIndex = new Map<string, number>();
    ledgersOf(run).forEach(({ ledger }, i) => ledger.entries.forEach((e) => ledgerIndex.set(e.entryId, i)));
    const ordersWithGap = run.orderIds.filter((orderId) => {
      const list = run.entries.filter((e) => e.orderId === orderId);
      return list.some(
        (e, i) =>
          i > 0 && (ledgerIndex.get(e.entryId) as number) < (ledgerIndex.get((list[i - 1] as Entry).entryId) as number),
      );
    });
    expect(ordersWithGap).toHaveLength(4);
  });

  it('prefixes every id with the run id', () => {
    const run = generateRun({ ...base, run: 'test-run' });
    const ids = [
      ...run.entries.flatMap((e) => [e.entryId, e.orderId]),
      ...ledgersOf(run).map((l) => l.ledger.ledgerId),
      ...run.deadLetters.map((d) => d.id),
    ];
    expect(ids.every((id) => id.startsWith('test-run-'))).toBe(true);
  });

  it('rejects options it cannot honour with a message naming the flag', () => {
    const fails = (o: Partial<GenerateOptions>, flag: string) => {
      try {
        generateRun({ ...base, ...o });
      } catch (error) {
        expect(isCliError(error)).toBe(true);
        expect(`${(error as Error).message} ${(error as { hint?: string }).hint ?? ''}`).toContain(flag);
        return;
      }
      throw new Error('expected a failure');
    };
    fails({ orders: 0 }, '--orders');
    fails({ orders: 1, entries: 1_002, ledgers: 1, conflicts: 0, gaps: 0, poison: 0 }, '--entries');
    fails({ duplicates: 1.5 }, '--duplicates');
    fails({ conflicts: 13 }, '--conflicts');
    fails({ gaps: 1, ledgers: 1 }, '--gaps');
    fails({ run: 'bad id!' }, '--run');
    fails({ orders: 2_000, entries: 5, ledgers: 1, conflicts: 0, gaps: 0 }, '--ledgers');
  });
});
