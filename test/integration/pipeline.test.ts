import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/ports/clock.js';
import { composeApp } from '../../src/functions/app.js';
import { peekEverything, receiveExactly } from '../support/serviceBusWaits.js';
import {
  deadLetters,
  drainSession,
  getOrder,
  handlerOf,
  postLedger,
  runSplitter,
  startStack,
} from './support/stack.js';
import type { Stack } from './support/stack.js';
import { interleave, orderEntries, uid } from './support/ledgers.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.close();
});

const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/;

describe('ledger → splitter → order processor → GET, on both emulators', () => {
  it('fans a posted ledger out per order in ledger order and applies every order FIFO', async () => {
    // Prepare
    const a = uid('o');
    const b = uid('o');
    const entries = interleave(orderEntries(a, [1250, -250], { deleted: true }), orderEntries(b, [700]));
    const ledgerId = uid('L');
    // Act
    const posted = await postLedger(stack, JSON.stringify({ ledgerId, entries }));
    const split = await runSplitter(stack);
    const peeker = stack.bus.createReceiver('orders');
    const fanned = await peekEverything(peeker);
    await peeker.close();
    const drainedA = await drainSession(stack, a);
    const drainedB = await drainSession(stack, b);
    const viewA = await getOrder(stack, a);
    const viewB = await getOrder(stack, b);
    // Assess
    expect(posted).toMatchObject({ status: 202, jsonBody: { ledgerId, entries: entries.length } });
    expect(split.message.messageId).toBe(ledgerId);
    expect(split.message.applicationProperties?.traceparent).toMatch(TRACEPARENT);
    expect(split.settled).toEqual([{ action: 'complete', messageId: ledgerId }]);
    expect(fanned.map((m) => m.body.entryId)).toEqual(entries.map((e) => e.entryId));
    const first = fanned[0]!;
    expect(first.messageId).toMatch(new RegExp(`^${entries[0]!.entryId}:[0-9a-f]{16}$`));
    expect(first).toMatchObject({ sessionId: a, correlationId: ledgerId, contentType: 'application/json' });
    expect(first.applicationProperties).toMatchObject({
      sequence: 1,
      type: 'OrderCreated',
      traceparent: split.message.applicationProperties?.traceparent,
    });
    expect(first.applicationProperties?.['Diagnostic-Id']).toBe(split.message.applicationProperties?.traceparent);
    expect(drainedA.results.map((r) => (r as { sequence: number }).sequence)).toEqual([1, 2, 3, 4]);
    expect(drainedA.results.every((r) => (r as { outcome: string }).outcome === 'applied')).toBe(true);
    expect(drainedB.settled.map((s) => s.action)).toEqual(['complete', 'complete']);
    expect(viewA).toMatchObject({
      status: 200,
      jsonBody: {
        orderId: a,
        status: 'deleted',
        lastSequence: 4,
        total: 1000,
        customerId: 'c-1',
        currency: 'EUR',
        parked: [],
        rejected: [],
      },
    });
    expect(viewB).toMatchObject({
      status: 200,
      jsonBody: { status: 'open', lastSequence: 2, total: 700, transactions: [{ transactionId: 't-1', amount: 700 }] },
    });
  });

  it('dead-letters an invalid ledger whole with its issues and fans nothing out', async () => {
    // Prepare
    const orderId = uid('o');
    const [created] = orderEntries(orderId, []);
    const sender = stack.bus.createSender('ledger');
    await sender.sendMessages({
      messageId: uid('L'),
      contentType: 'application/json',
      body: { ledgerId: uid('L'), entries: [created, created] },
    });
    await sender.close();
    // Act
    const split = await runSplitter(stack);
    const dead = await deadLetters(stack, 'ledger');
    const peeker = stack.bus.createReceiver('orders');
    const fanned = await peekEverything(peeker);
    await peeker.close();
    // Assess
    expect(split.settled).toMatchObject([{ action: 'deadletter', reason: 'SchemaValidationFailed' }]);
    expect(dead).toHaveLength(1);
    expect(dead[0]!.deadLetterReason).toBe('SchemaValidationFailed');
    expect(dead[0]!.deadLetterErrorDescription).toContain('entries[1].entryId');
    expect(fanned.filter((m) => m.sessionId === orderId)).toEqual([]);
  });

  it('lets a redelivered ledger re-send identical messages that broker duplicate detection drops', async () => {
    // Prepare
    const orderId = uid('o');
    const ledgerId = uid('L');
    await postLedger(stack, JSON.stringify({ ledgerId, entries: orderEntries(orderId, [10, 20]) }));
    // Act: the first completion is lost, so the ledger comes back and is split again.
    const first = await runSplitter(stack, { loseCompletions: true });
    const second = await runSplitter(stack);
    const drained = await drainSession(stack, orderId);
    // Assess
    expect(first.message.messageId).toBe(ledgerId);
    expect(second.message.deliveryCount).toBe(1);
    expect(drained.results).toHaveLength(3);
    expect((await getOrder(stack, orderId)).jsonBody).toMatchObject({ lastSequence: 3, total: 30 });
  });

  it('renews the ledger lock before a batch once half the lock duration has passed since it was taken, and not before', async () => {
    // Prepare: the splitter reads a clock the test moves, so "time has passed" does not depend on the machine's pace.
    // One reads the same instant every time (no time passes while sending); the other is half the lock duration
    // (default PT1M) later at each reading, as if every batch took that long.
    const still = { now: () => 0 };
    let ms = 0;
    const slow = { now: () => (ms += 30_000) };
    const split = async (clock: Clock) => {
      const orderId = uid('o');
      await postLedger(stack, JSON.stringify({ ledgerId: uid('L'), entries: orderEntries(orderId, [1, 2, 3]) }));
      // The same app, composed with that clock.
      const app = composeApp({ clock });
      await app.start();
      try {
        return await runSplitter({
          ...stack,
          handlers: {
            ...stack.handlers,
            ledgerSplitter: handlerOf(app, 'ledgerSplitter') as Stack['handlers']['ledgerSplitter'],
          },
        });
      } finally {
        await app.terminate();
        await drainSession(stack, orderId);
      }
    };
    // Act
    const quick = await split(still);
    const long = await split(slow);
    // Assess
    expect(quick.renewals).toEqual([]);
    expect(quick.settled).toEqual([{ action: 'complete', messageId: quick.message.messageId }]);
    expect(long.renewals).toEqual([long.message.messageId]);
    expect(long.settled).toEqual([{ action: 'complete', messageId: long.message.messageId }]);
  });
});

describe('HTTP functions', () => {
  it("carries the caller's trace from POST /api/ledgers to the ledger and on to every entry", async () => {
    // Prepare
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const orderId = uid('o');
    // Act
    const posted = await postLedger(
      stack,
      JSON.stringify({ ledgerId: uid('L'), entries: orderEntries(orderId, [5]) }),
      { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    );
    const split = await runSplitter(stack);
    const receiver = await stack.bus.acceptSession('orders', orderId);
    const entries = await receiveExactly(receiver, 2);
    await Promise.all(entries.map((m) => receiver.completeMessage(m)));
    await receiver.close();
    // Assess
    expect(posted.status).toBe(202);
    expect(split.message.applicationProperties?.['Diagnostic-Id']).toMatch(
      new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`),
    );
    expect(entries.map((m) => m.applicationProperties?.traceparent)).toEqual([
      split.message.applicationProperties?.traceparent,
      split.message.applicationProperties?.traceparent,
    ]);
  });

  it('answers 404 for an order nothing is known of', async () => {
    expect(await getOrder(stack, uid('nobody'))).toMatchObject({ status: 404 });
    expect(await getOrder(stack, 'o'.repeat(129))).toMatchObject({ status: 404 });
  });

  it('answers 400 with issues for a body that is not JSON or breaks the ledger rules', async () => {
    // Act
    const notJson = await postLedger(stack, '{ not json');
    const invalid = await postLedger(
      stack,
      JSON.stringify({ ledgerId: 'L-x', entries: [{ ...orderEntries('o-x', [])[0], orderId: '' }] }),
    );
    // Assess
    expect(notJson).toMatchObject({
      status: 400,
      jsonBody: { error: 'SchemaValidationFailed', issues: [{ path: '', message: expect.any(String) }] },
    });
    expect(invalid).toMatchObject({
      status: 400,
      jsonBody: { error: 'SchemaValidationFailed', issues: [{ path: 'entries[0].orderId' }] },
    });
  });

  it('answers 413 for a declared or actual body over 262,144 bytes', async () => {
    // Prepare
    const body = JSON.stringify({ ledgerId: 'L-big', entries: [], pad: 'x'.repeat(262_144) });
    // Act
    const declared = await postLedger(stack, '{}', { 'content-length': '262145' });
    const actual = await postLedger(stack, body);
    // Assess
    expect(declared.status).toBe(413);
    expect(actual.status).toBe(413);
  });
});
