import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DlqListing } from '@ledger-convoy/cli';
import { withOrdersContainer } from '@ledger-convoy/cli';
import { FunctionApi } from '@ledger-convoy/cli';
import { messageEntryId } from '@ledger-convoy/cli';
import { peekAll } from '@ledger-convoy/cli';
import { type Entry, type OrderView } from '../../src/core/index.js';
import { startE2eStack, type E2eStack } from './support/e2eStack.js';
import { businessStateOf, waitForValue } from './support/views.js';

const created = (orderId: string): Entry => ({
  entryId: `${orderId}-e1`,
  orderId,
  sequence: 1,
  type: 'OrderCreated',
  data: { customerId: 'c-7', currency: 'EUR' },
});
const added = (orderId: string, sequence: number, transactionId: string, amount: number): Entry => ({
  entryId: `${orderId}-e${sequence}`,
  orderId,
  sequence,
  type: 'TransactionAdded',
  data: { transactionId, amount },
});
const amended = (orderId: string, sequence: number, transactionId: string, amount: number): Entry => ({
  entryId: `${orderId}-e${sequence}`,
  orderId,
  sequence,
  type: 'TransactionAmended',
  data: { transactionId, amount },
});

describe('repairing a dead letter with convoy dlq resubmit, on the whole local stack in-process', () => {
  let stack: E2eStack;
  let api: FunctionApi;
  const view = async (orderId: string): Promise<OrderView | undefined> => api.getOrder(orderId);
  const postLedger = async (ledgerId: string, entries: Entry[]): Promise<void> => {
    const response = await fetch(`${stack.host.httpUrl}/ledgers`, {
      method: 'POST',
      body: JSON.stringify({ ledgerId, entries }),
    });
    expect(response.status).toBe(202);
  };
  const deadLettersOf = async (entryId: string) =>
    (await peekAll(stack.bus, 'orders', 'deadLetter')).filter((m) => messageEntryId(m.body, m.messageId) === entryId);

  beforeAll(async () => {
    stack = await startE2eStack();
    api = new FunctionApi({ httpBaseUrl: stack.appUrl, functionKey: undefined });
  });
  afterAll(async () => stack?.close());

  it(
    'holds the order at a dead-lettered sequence (rule 10) and applies the parked entries in order once a correction is resubmitted',
    { timeout: 60_000 },
    async () => {
      // Prepare: sequence 2 amends a transaction that does not exist; 3 and 4 come after it in the same ledger.
      const o = 'e2e-rs-a';
      await postLedger('e2e-rs-L1', [
        created(o),
        amended(o, 2, 't-1', 999),
        added(o, 3, 't-2', 500),
        amended(o, 4, 't-1', 1200),
      ]);
      const held = await waitForValue(
        () => view(o),
        (v) => v?.parked.length === 2,
        'sequences 3 and 4 parked',
      );
      expect(held).toMatchObject({ status: 'open', lastSequence: 1, total: 0, transactions: [], rejected: [] });
      expect(held?.parked).toEqual([
        { sequence: 3, entryId: `${o}-e3` },
        { sequence: 4, entryId: `${o}-e4` },
      ]);
      const listed = await stack.cli(['dlq', 'list', '--json']);
      expect(listed.code, listed.err).toBe(0);
      const listing = JSON.parse(listed.out) as DlqListing;
      expect(listing.deadLetters.filter((d) => d.sessionId === o)).toMatchObject([
        { entryId: `${o}-e2`, sequence: 2, reason: 'InvalidTransition', resubmitCount: 0 },
      ]);
      const fixed = join(stack.dir, 'fixed-a2.json');
      await writeFile(fixed, JSON.stringify(added(o, 2, 't-1', 1000)));

      // Act
      const resubmitted = await stack.cli(['dlq', 'resubmit', `${o}-e2`, '--body', fixed]);

      // Assess: the correction went back to the order's session under the rule 10 message id …
      expect(resubmitted.code, resubmitted.err).toBe(0);
      expect(resubmitted.out).toContain(`${o}-e2 (session ${o}) as ${o}-e2.r1`);
      // … and once applied, 3 and 4 drained behind it: 4 amends the transaction that only the corrected 2 adds.
      const done = await waitForValue(
        () => view(o),
        (v) => v?.lastSequence === 4,
        'sequence 4 applied',
      );
      expect(done).toMatchObject({ parked: [], rejected: [] });
      expect(businessStateOf(done!)).toEqual({
        orderId: o,
        status: 'open',
        customerId: 'c-7',
        currency: 'EUR',
        lastSequence: 4,
        total: 1700,
        transactions: [
          { transactionId: 't-1', amount: 1200 },
          { transactionId: 't-2', amount: 500 },
        ],
      });
      expect(await deadLettersOf(`${o}-e2`)).toEqual([]);
    },
  );

  it(
    'moves a parked entry that proves invalid at its turn to rejected (rule 11) and releases the order when a correction is resubmitted',
    { timeout: 60_000 },
    async () => {
      // Prepare: 2 is dead-lettered; 3 amends an unknown transaction, so it fails only when 2's correction lets it run.
      const o = 'e2e-rs-b';
      await postLedger('e2e-rs-L2', [
        created(o),
        amended(o, 2, 't-1', 1),
        amended(o, 3, 't-9', 300),
        added(o, 4, 't-2', 40),
      ]);
      await waitForValue(
        () => view(o),
        (v) => v?.parked.length === 2,
        'sequences 3 and 4 parked',
      );
      await waitForValue(
        () => deadLettersOf(`${o}-e2`),
        (d) => d.length === 1,
        'the dead letter of sequence 2',
      );
      const fixed2 = join(stack.dir, 'fixed-b2.json');
      await writeFile(fixed2, JSON.stringify(added(o, 2, 't-1', 100)));
      expect((await stack.cli(['dlq', 'resubmit', `${o}-e2`, '--body', fixed2])).code).toBe(0);
      const rejected = await waitForValue(
        () => view(o),
        (v) => (v?.rejected.length ?? 0) > 0,
        'sequence 3 rejected',
      );
      expect(rejected).toMatchObject({
        lastSequence: 2,
        total: 100,
        rejected: [{ sequence: 3, entryId: `${o}-e3`, reason: 'InvalidTransition' }],
        parked: [{ sequence: 4, entryId: `${o}-e4` }],
      });
      // Its details wait for the correction in its record, status rejected (rule 11).
      const rejectedDocument = () =>
        withOrdersContainer(
          stack.host.settings,
          async (c) => (await c.item(`entry:order-processor:${o}-e3`, o).read()).resource as unknown,
        );
      expect(await rejectedDocument()).toMatchObject({
        docType: 'entry',
        status: 'rejected',
        entry: amended(o, 3, 't-9', 300),
        correlationId: 'e2e-rs-L2',
      });
      const listed = JSON.parse((await stack.cli(['dlq', 'list', '--order', o, '--json'])).out) as DlqListing;
      expect(listed.rejected).toEqual([{ orderId: o, sequence: 3, entryId: `${o}-e3`, reason: 'InvalidTransition' }]);
      const fixed3 = join(stack.dir, 'fixed-b3.json');
      await writeFile(fixed3, JSON.stringify(added(o, 3, 't-9', 300)));

      // Act
      const resubmitted = await stack.cli(['dlq', 'resubmit', '--order', o, '--sequence', '3', '--body', fixed3]);

      // Assess
      expect(resubmitted.code, resubmitted.err).toBe(0);
      // The correction keeps the original ledger as its correlationId, read from the order's documents (rule 10).
      expect(resubmitted.out).toBe(`resubmitted ${o}-e3 to session ${o} as ${o}-e3.r1 (correlationId e2e-rs-L2)`);
      const done = await waitForValue(
        () => view(o),
        (v) => v?.lastSequence === 4,
        'sequence 4 applied',
      );
      expect(done).toMatchObject({ parked: [], rejected: [] });
      // The correction's batch replaced the record with the applied one.
      expect(await rejectedDocument()).toMatchObject({ status: 'applied', sequence: 3 });
      expect(businessStateOf(done!)).toEqual({
        orderId: o,
        status: 'open',
        customerId: 'c-7',
        currency: 'EUR',
        lastSequence: 4,
        total: 440,
        transactions: [
          { transactionId: 't-1', amount: 100 },
          { transactionId: 't-9', amount: 300 },
          { transactionId: 't-2', amount: 40 },
        ],
      });
      expect((await peekAll(stack.bus, 'orders', 'deadLetter')).filter((m) => m.sessionId === o)).toEqual([]);
    },
  );

  it(
    'numbers each further correction of a rejected entry past the last (rule 10), so duplicate detection drops none, and prints the id it sent',
    { timeout: 60_000 },
    async () => {
      // Prepare: 3 arrives before 2 (another ledger) and parks; when 2 applies, 3 amends a transaction nobody added.
      const o = 'e2e-rs-c';
      await postLedger('e2e-rs-L3', [created(o), amended(o, 3, 't-9', 300)]);
      await waitForValue(
        () => view(o),
        (v) => v?.parked.length === 1,
        'sequence 3 parked',
      );
      await postLedger('e2e-rs-L4', [added(o, 2, 't-1', 100)]);
      await waitForValue(
        () => view(o),
        (v) => v?.rejected.length === 1,
        'sequence 3 rejected',
      );
      const body = async (name: string, entry: Entry): Promise<string> => {
        const file = join(stack.dir, name);
        await writeFile(file, JSON.stringify(entry));
        return file;
      };
      const stillWrong = await body('c3-wrong.json', amended(o, 3, 't-8', 300));
      const stillWrongToo = await body('c3-wrong-too.json', amended(o, 3, 't-7', 300));
      const right = await body('c3-right.json', added(o, 3, 't-9', 300));
      const correct = (file: string) => stack.cli(['dlq', 'resubmit', '--order', o, '--sequence', '3', '--body', file]);
      const printedId = (out: string) => /^resubmitted \S+ to session \S+ as (\S+) /.exec(out)?.[1];

      // Act: two corrections that are still invalid (each dead-lettered by the processor at once), then a right one.
      const first = await correct(stillWrong);
      await waitForValue(
        () => deadLettersOf(`${o}-e3`),
        (d) => d.length === 1,
        'the first correction dead-lettered',
      );
      const second = await correct(stillWrongToo);
      const deadLetters = await waitForValue(
        () => deadLettersOf(`${o}-e3`),
        (d) => d.length === 2,
        'the second correction dead-lettered',
      );
      const third = await correct(right);

      // Assess: the second went out as .r2 — a second .r1 would have been dropped by the broker inside its window.
      expect([first, second, third].map((run) => run.code)).toEqual([0, 0, 0]);
      expect([first, second, third].map((run) => printedId(run.out))).toEqual([
        `${o}-e3.r1`,
        `${o}-e3.r2`,
        `${o}-e3.r3`,
      ]);
      expect(deadLetters.map((m) => [m.messageId, m.applicationProperties?.resubmitCount, m.deadLetterReason])).toEqual(
        [
          [printedId(first.out), 1, 'InvalidTransition'],
          [printedId(second.out), 2, 'InvalidTransition'],
        ],
      );
      const done = await waitForValue(
        () => view(o),
        (v) => v?.lastSequence === 3,
        'the third correction applied',
      );
      expect(done).toMatchObject({ rejected: [], parked: [], total: 400 });
    },
  );
});
