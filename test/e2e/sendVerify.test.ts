import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readExpectation, type Expectation } from '@ledger-convoy/cli';
import { FunctionApi } from '@ledger-convoy/cli';
import { peekAll } from '@ledger-convoy/cli';
import type { VerifyReport } from '@ledger-convoy/cli';
import { messageEntryId } from '@ledger-convoy/cli';
import { businessStateOf, countBy } from './support/views.js';
import { startE2eStack, type E2eStack } from './support/e2eStack.js';

// A few hundred entries with every kind of trouble `send` can make, reproducibly.
const RUN = { orders: 40, entries: 8, ledgers: 6, duplicates: 0.1, conflicts: 3, poison: 8, gaps: 4, seed: 20_240_611 };

describe('convoy send, then convoy verify, against the whole local stack in-process', () => {
  let stack: E2eStack;
  beforeAll(async () => {
    stack = await startE2eStack();
  });
  afterAll(async () => stack?.close());

  it(
    'applies every valid entry exactly once and in order, and dead-letters exactly the conflicts and the poison',
    { timeout: 90_000 },
    async () => {
      // Prepare
      const file = join(stack.dir, 'expected.json');
      const flags = Object.entries(RUN).flatMap(([name, value]) => [`--${name}`, String(value)]);

      // Act
      const sent = await stack.cli(['send', ...flags, '--out', file, '--quiet']);
      expect(sent, sent.err).toMatchObject({ code: 0 });
      const expectation: Expectation = await readExpectation(file);
      const verified = await stack.cli(['verify', '--file', file, '--timeout', '60', '--json', '--quiet']);

      // Assess: the verifier's own verdict …
      expect(verified.code, verified.out).toBe(0);
      const report = JSON.parse(verified.out) as VerifyReport;
      expect(report).toMatchObject({ ok: true, outcome: 'matched' });
      expect(report.comparison.orders).toMatchObject({
        expected: RUN.orders,
        matched: RUN.orders,
        mismatched: [],
        missing: [],
      });
      expect(report.comparison.deadLetters.byReason).toEqual([
        { reason: 'IdempotencyKeyConflict', expected: RUN.conflicts, found: RUN.conflicts },
        { reason: 'SchemaValidationFailed', expected: RUN.poison, found: RUN.poison },
      ]);
      expect(report.comparison.deadLetters).toMatchObject({ missing: [], unexpected: [] });

      // … and what the system shows, read independently of the verifier.
      expect(expectation.counts).toMatchObject({
        entries: RUN.orders * RUN.entries,
        conflicts: RUN.conflicts,
        poison: RUN.poison,
        gaps: RUN.gaps,
      });
      expect(expectation.counts.duplicateEntries + expectation.counts.resentLedgers).toBeGreaterThan(0);
      const api = new FunctionApi({ httpBaseUrl: stack.appUrl, functionKey: undefined });
      for (const expected of expectation.orders) {
        const view = await api.getOrder(expected.orderId);
        expect(view, expected.orderId).toBeDefined();
        expect(view?.parked, expected.orderId).toEqual([]);
        expect(view?.rejected, expected.orderId).toEqual([]);
        expect(businessStateOf(view!), expected.orderId).toEqual(expected);
      }
      const [ordersDlq, ledgerDlq] = await Promise.all([
        peekAll(stack.bus, 'orders', 'deadLetter'),
        peekAll(stack.bus, 'ledger', 'deadLetter'),
      ]);
      const found = [
        ...ordersDlq.map((m) => `orders ${messageEntryId(m.body, m.messageId)} ${m.deadLetterReason}`),
        ...ledgerDlq.map((m) => `ledger ${String(m.messageId)} ${m.deadLetterReason}`),
      ].sort();
      expect(found).toEqual(expectation.deadLetters.map((d) => `${d.queue} ${d.id} ${d.reason}`).sort());
      expect(countBy(ordersDlq, (m) => m.deadLetterReason)).toEqual({
        IdempotencyKeyConflict: RUN.conflicts,
        SchemaValidationFailed: RUN.poison - RUN.poison / 4,
      });
      expect(countBy(ledgerDlq, (m) => m.deadLetterReason)).toEqual({ SchemaValidationFailed: RUN.poison / 4 });
      // Nothing left to process: every message was settled.
      expect(await peekAll(stack.bus, 'orders', undefined, 1)).toEqual([]);
      expect(await peekAll(stack.bus, 'ledger', undefined, 1)).toEqual([]);
    },
  );
});
