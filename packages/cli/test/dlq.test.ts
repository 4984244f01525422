import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { runDlqList } from '../src/dlq/list.js';
import { runDlqPurge } from '../src/dlq/purge.js';
import { runDlqResubmit } from '../src/dlq/resubmit.js';
import { runDlqShow } from '../src/dlq/show.js';
import { peekAll } from '../src/serviceBus.js';
import { resolveCliSettings } from '../src/settings.js';
import { runCli } from '../src/program.js';
import type { CliIo } from '../src/io.js';
import { peekEverything, receiveExactly } from '../../../test/support/serviceBusWaits.js';
import { deadLetterEntries, startCliBus, type CliTestBus } from './support.js';

const entry = (orderId: string, sequence: number, amount = 100) => ({
  entryId: `${orderId}-e${sequence}`,
  orderId,
  sequence,
  type: 'TransactionAdded',
  data: { transactionId: `t${sequence}`, amount },
});

/** A stand-in for the function app's GET /api/orders/{id}: order o-2 has a rejected entry. */
async function fakeOrdersApi(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const id = decodeURIComponent((req.url ?? '').replace('/api/orders/', ''));
    if (id !== 'o-2') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        orderId: 'o-2',
        status: 'open',
        customerId: 'c',
        currency: 'EUR',
        lastSequence: 3,
        total: 0,
        transactions: [],
        parked: [{ sequence: 6, entryId: 'o-2-e6' }],
        rejected: [{ sequence: 5, entryId: 'o-2-e5', reason: 'InvalidTransition' }],
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('convoy dlq against the Service Bus emulator', () => {
  let bus: CliTestBus;
  const api = fakeOrdersApi();
  beforeEach(async () => {
    bus = await startCliBus();
  });
  afterEach(async () => bus.close());
  afterAll(async () => (await api).server.close());

  it('lists dead letters with reason, entry, sequence and session, plus the rejected entries of their orders', async () => {
    await deadLetterEntries(bus.client, [
      { body: entry('o-1', 2), sessionId: 'o-1', messageId: 'o-1-e2:0123456789abcdef', reason: 'InvalidTransition' },
      { body: Buffer.from('{oops'), sessionId: 'o-2', messageId: 'p-1', reason: 'SchemaValidationFailed' },
    ]);
    const { url } = await api;
    const settings = resolveCliSettings({ servicebus: bus.emulator.connectionString, http: url }, {}, '/nonexistent');
    const listing = await runDlqList({ settings });
    expect(listing.deadLetters.map((d) => [d.reason, d.entryId, d.sequence, d.sessionId, d.description])).toEqual([
      ['InvalidTransition', 'o-1-e2', 2, 'o-1', 'test: InvalidTransition'],
      ['SchemaValidationFailed', 'p-1', undefined, 'o-2', 'test: SchemaValidationFailed'],
    ]);
    expect(listing.rejected).toEqual([{ orderId: 'o-2', sequence: 5, entryId: 'o-2-e5', reason: 'InvalidTransition' }]);
    expect(listing.ordersUnavailable).toBeUndefined();
  });

  it('peeks the whole dead-letter queue on every look, not from where the last look ended', async () => {
    await deadLetterEntries(bus.client, [
      { body: entry('o-1', 2), sessionId: 'o-1', messageId: 'm-1', reason: 'InvalidTransition' },
    ]);
    const first = await peekAll(bus.client, 'orders', 'deadLetter');
    const second = await peekAll(bus.client, 'orders', 'deadLetter');
    expect(second.map((m) => m.messageId)).toEqual(first.map((m) => m.messageId));
    expect(second).toHaveLength(1);
  });

  it('still lists the dead letters when the function app is down, saying why the orders are missing', async () => {
    await deadLetterEntries(bus.client, [
      { body: entry('o-1', 2), sessionId: 'o-1', messageId: 'm-1', reason: 'InvalidTransition' },
    ]);
    const listing = await runDlqList({ settings: bus.settings });
    expect(listing.deadLetters).toHaveLength(1);
    expect(listing.ordersUnavailable).toMatch(/Cannot reach the function app/);
  });

  it('shows one dead letter in full by sequence number or entry id', async () => {
    await deadLetterEntries(bus.client, [
      {
        body: entry('o-1', 2),
        sessionId: 'o-1',
        messageId: 'm-1',
        reason: 'InvalidTransition',
        applicationProperties: { sequence: 2, type: 'TransactionAdded' },
      },
    ]);
    const [byEntry] = await runDlqShow({ settings: bus.settings, id: 'o-1-e2' });
    expect(byEntry).toMatchObject({
      messageId: 'm-1',
      correlationId: 'L-test',
      reason: 'InvalidTransition',
      body: entry('o-1', 2),
    });
    expect(byEntry?.applicationProperties).toMatchObject({ sequence: 2, type: 'TransactionAdded' });
    const [bySequence] = await runDlqShow({ settings: bus.settings, id: String(byEntry?.sequenceNumber) });
    expect(bySequence?.messageId).toBe('m-1');
    await expect(runDlqShow({ settings: bus.settings, id: 'nope' })).rejects.toMatchObject({ code: 'NotFound' });
  });

  it('resubmits only the selected dead letters with <entryId>.r<n>, keeping session, correlation and properties, and leaves the others', async () => {
    // Selected and unselected interleave, so one receive batch completes some and abandons others.
    await deadLetterEntries(bus.client, [
      {
        body: entry('o-1', 2),
        sessionId: 'o-1',
        messageId: 'a',
        reason: 'InvalidTransition',
        applicationProperties: { sequence: 2, type: 'TransactionAdded' },
      },
      { body: entry('o-2', 3), sessionId: 'o-2', messageId: 'b', reason: 'SequenceConflict' },
      {
        body: entry('o-3', 4),
        sessionId: 'o-3',
        messageId: 'c',
        reason: 'InvalidTransition',
        applicationProperties: { resubmitCount: 2 },
      },
      { body: entry('o-4', 5), sessionId: 'o-4', messageId: 'd', reason: 'SequenceConflict' },
    ]);
    const report = await runDlqResubmit({ settings: bus.settings, reason: 'InvalidTransition' });
    expect(report.resubmitted.map((r) => r.messageId).sort()).toEqual(['o-1-e2.r1', 'o-3-e4.r3']);

    const left = await runDlqList({ settings: bus.settings });
    expect(left.deadLetters.map((d) => d.entryId).sort()).toEqual(['o-2-e3', 'o-4-e5']);

    const receiver = await bus.client.acceptSession('orders', 'o-1');
    const [copy] = await receiveExactly(receiver, 1, 'copies');
    expect(copy).toMatchObject({
      messageId: 'o-1-e2.r1',
      sessionId: 'o-1',
      correlationId: 'L-test',
      contentType: 'application/json',
      body: entry('o-1', 2),
    });
    expect(copy?.applicationProperties).toEqual({ sequence: 2, type: 'TransactionAdded', resubmitCount: 1 });

    // Dead-lettered again, the next resubmission counts on from the copy's resubmitCount.
    await receiver.deadLetterMessage(copy!, {
      deadLetterReason: 'InvalidTransition',
      deadLetterErrorDescription: 'again',
    });
    await receiver.close();
    const again = await runDlqResubmit({ settings: bus.settings, ids: ['o-1-e2'] });
    expect(again.resubmitted.map((r) => r.messageId)).toEqual(['o-1-e2.r2']);
  });

  it('numbers a copy 1 + the highest resubmitCount over all dead letters of its entry, and each copy of one run apart', async () => {
    // Prepare: o-1-e2 dead-lettered three times (copies .r3 and .r1 failed again); o-2 has an entry of the same id.
    await deadLetterEntries(bus.client, [
      { body: entry('o-1', 2), sessionId: 'o-1', messageId: 'o-1-e2:0123456789abcdef', reason: 'InvalidTransition' },
      {
        body: entry('o-1', 2),
        sessionId: 'o-1',
        messageId: 'o-1-e2.r3',
        reason: 'InvalidTransition',
        applicationProperties: { resubmitCount: 3 },
      },
      {
        body: entry('o-1', 2),
        sessionId: 'o-1',
        messageId: 'o-1-e2.r1',
        reason: 'InvalidTransition',
        applicationProperties: { resubmitCount: 1 },
      },
      {
        body: { ...entry('o-2', 2), entryId: 'o-1-e2' },
        sessionId: 'o-2',
        messageId: 'x.r8',
        reason: 'InvalidTransition',
        applicationProperties: { resubmitCount: 8 },
      },
    ]);
    const original = (await runDlqList({ settings: bus.settings })).deadLetters.find(
      (d) => d.messageId === 'o-1-e2:0123456789abcdef',
    );
    // Act 1: resubmit only the original, whose own count is 0.
    const one = await runDlqResubmit({ settings: bus.settings, ids: [original!.sequenceNumber] });
    // Its copy fails again: the processor dead-letters it, with its resubmitCount 4.
    const session = await bus.client.acceptSession('orders', 'o-1');
    const [copy] = await receiveExactly(session, 1, 'copies');
    await session.deadLetterMessage(copy!, {
      deadLetterReason: 'InvalidTransition',
      deadLetterErrorDescription: 'again',
    });
    await session.close();
    // Act 2: every dead letter of o-1-e2 at once (three in o-1, one in o-2).
    const rest = await runDlqResubmit({ settings: bus.settings, ids: ['o-1-e2'] });
    // Assess: o-2's entry of the same id is another entry (the inbox is per order), numbered on its own.
    expect(one.resubmitted.map((r) => r.messageId)).toEqual(['o-1-e2.r4']);
    expect(copy).toMatchObject({ messageId: 'o-1-e2.r4', applicationProperties: { resubmitCount: 4 } });
    expect(rest.resubmitted.map((r) => `${r.sessionId} ${r.messageId}`).sort()).toEqual([
      'o-1 o-1-e2.r5',
      'o-1 o-1-e2.r6',
      'o-1 o-1-e2.r7',
      'o-2 o-1-e2.r9',
    ]);
    // Every copy arrived: none repeated an id that the broker's duplicate detection would have dropped, and the
    // session holds nothing else (the peek sees the locked copies too).
    const receiver = await bus.client.acceptSession('orders', 'o-1');
    const copies = await receiveExactly(receiver, 3, 'copies');
    expect(await peekEverything(receiver)).toHaveLength(3);
    await receiver.close();
    expect(
      copies.map((m) => `${String(m.messageId)} ${String(m.applicationProperties?.resubmitCount)}`).sort(),
    ).toEqual(['o-1-e2.r5 5', 'o-1-e2.r6 6', 'o-1-e2.r7 7']);
  });

  it('refuses, sending nothing for it and keeping the dead letter, a correction that changes the entryId, the sequence or the order', async () => {
    // Prepare
    await deadLetterEntries(bus.client, [
      { body: entry('o-1', 2), sessionId: 'o-1', messageId: 'o-1-e2:0123456789abcdef', reason: 'InvalidTransition' },
    ]);
    const changes = [
      [{ ...entry('o-1', 2), entryId: 'o-1-e2-fixed' }, 'entryId o-1-e2 (not o-1-e2-fixed)'],
      [{ ...entry('o-1', 2), sequence: 3 }, 'sequence 2 (not 3)'],
      [{ ...entry('o-1', 2), orderId: 'o-7' }, 'orderId o-1, its session (not o-7)'],
    ] as const;
    for (const [changed, kept] of changes) {
      // Act
      const act = runDlqResubmit({ settings: bus.settings, ids: ['o-1-e2'], correct: () => changed });
      // Assess
      await expect(act).rejects.toMatchObject({
        code: 'InvalidOption',
        message: `The corrected entry must keep ${kept}.`,
      });
    }
    expect((await runDlqList({ settings: bus.settings })).deadLetters.map((d) => d.entryId)).toEqual(['o-1-e2']);
    const peeker = await bus.client.acceptSession('orders', 'o-1');
    expect(await peekEverything(peeker)).toEqual([]);
    await peeker.close();
  });

  it('resubmits a corrected body and reports ids it cannot find', async () => {
    await deadLetterEntries(bus.client, [
      {
        body: Buffer.from('{broken'),
        sessionId: 'o-9',
        messageId: 'o-9-e1:0123456789abcdef',
        reason: 'SchemaValidationFailed',
      },
    ]);
    const fixed = { ...entry('o-9', 1), type: 'OrderCreated', data: { customerId: 'c-1', currency: 'EUR' } };
    const report = await runDlqResubmit({ settings: bus.settings, ids: ['o-9-e1', 'missing'], correct: () => fixed });
    expect(report).toMatchObject({
      resubmitted: [{ messageId: 'o-9-e1.r1', sessionId: 'o-9' }],
      notFound: ['missing'],
    });
    const receiver = await bus.client.acceptSession('orders', 'o-9');
    const [copy] = await receiveExactly(receiver, 1, 'copies');
    expect(copy?.body).toEqual(fixed);
    expect(copy?.applicationProperties).toEqual({ sequence: 1, type: 'OrderCreated', resubmitCount: 1 });
    await receiver.close();
  });

  it("refuses, before sending anything, a ledger whose <ledgerId>.r<n> would exceed Service Bus's 128-character messageId", async () => {
    // Prepare: a dead-lettered ledger whose id is already the longest allowed.
    const ledgerId = 'L'.repeat(128);
    const sender = bus.client.createSender('ledger');
    await sender.sendMessages({
      messageId: ledgerId,
      contentType: 'application/json',
      body: { ledgerId, entries: [] },
    });
    await sender.close();
    const receiver = bus.client.createReceiver('ledger');
    const [ledger] = await receiveExactly(receiver, 1, 'ledgers');
    await receiver.deadLetterMessage(ledger!, {
      deadLetterReason: 'SchemaValidationFailed',
      deadLetterErrorDescription: 'test',
    });
    await receiver.close();
    // Act
    const act = runDlqResubmit({ settings: bus.settings, queue: 'ledger', all: true });
    // Assess
    await expect(act).rejects.toMatchObject({
      code: 'InvalidOption',
      message: expect.stringMatching(/131 characters, over the Service Bus limit of 128/),
    });
    expect((await runDlqList({ settings: bus.settings, queue: 'ledger' })).deadLetters.map((d) => d.messageId)).toEqual(
      [ledgerId],
    );
    const peeker = bus.client.createReceiver('ledger');
    expect(await peekEverything(peeker)).toEqual([]);
    await peeker.close();
  });

  it('keeps a dead letter whose correction fails', async () => {
    await deadLetterEntries(bus.client, [
      { body: entry('o-1', 2), sessionId: 'o-1', messageId: 'a', reason: 'InvalidTransition' },
    ]);
    const failing = () => {
      throw new Error('editor crashed');
    };
    await expect(runDlqResubmit({ settings: bus.settings, all: true, correct: failing })).rejects.toThrow(
      'editor crashed',
    );
    expect((await runDlqList({ settings: bus.settings })).deadLetters).toHaveLength(1);
  });

  it('refuses to resubmit without a selection and to purge without --yes, then purges', async () => {
    await deadLetterEntries(bus.client, [
      { body: entry('o-1', 2), sessionId: 'o-1', messageId: 'a', reason: 'InvalidTransition' },
      { body: entry('o-2', 2), sessionId: 'o-2', messageId: 'b', reason: 'InvalidTransition' },
    ]);
    await expect(runDlqResubmit({ settings: bus.settings })).rejects.toMatchObject({ code: 'InvalidOption' });
    await expect(runDlqPurge({ settings: bus.settings, yes: false })).rejects.toMatchObject({ code: 'InvalidOption' });
    expect(await runDlqPurge({ settings: bus.settings, yes: true })).toBe(2);
    expect((await runDlqList({ settings: bus.settings })).deadLetters).toHaveLength(0);
  });

  it('lists, shows and purges the dead letters of a subscription of order-events, and refuses to resubmit them, saying why', async () => {
    // Prepare: an event a downstream of `all` gave up on.
    const sender = bus.client.createSender('order-events');
    await sender.sendMessages({
      body: { id: 'e-1' },
      sessionId: 'o-9',
      messageId: 'evt-1',
      subject: 'convoy.order.created',
    });
    await sender.close();
    const receiver = await bus.client.acceptSession('order-events', 'all', 'o-9');
    const [event] = await receiveExactly(receiver, 1, 'the event');
    await receiver.deadLetterMessage(event!, { deadLetterReason: 'DownstreamFailed', deadLetterErrorDescription: 'x' });
    await receiver.close();
    const cli = async (...args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const io: CliIo = { out: (t) => void out.push(t), err: (t) => void err.push(t), exitCode: 0 };
      const code = await runCli(
        [...args, '--servicebus', bus.emulator.connectionString, '--http', 'http://127.0.0.1:9'],
        io,
      );
      return { code, out: out.join('\n'), err: err.join('\n') };
    };
    // Act + Assess
    const listed = await cli('dlq', 'list', '--subscription', 'all');
    expect(listed.out).toContain('order-events/Subscriptions/all/$DeadLetterQueue: 1 dead letter(s)');
    expect(listed.out).toContain('DownstreamFailed');
    const shown = await cli('dlq', 'show', 'evt-1', '--subscription', 'all');
    expect(JSON.parse(shown.out)).toMatchObject({ messageId: 'evt-1', sessionId: 'o-9', body: { id: 'e-1' } });
    const resubmitted = await cli('dlq', 'resubmit', '--all', '--subscription', 'all');
    expect(resubmitted.code).not.toBe(0);
    expect(resubmitted.err).toContain('Dead letters of a subscription are not resubmitted');
    expect(resubmitted.err).toContain('within the duplicate-detection window');
    expect(
      (await runDlqList({ settings: bus.settings, queue: 'order-events/Subscriptions/all' })).deadLetters,
    ).toHaveLength(1);
    const purged = await cli('dlq', 'purge', '--yes', '--subscription', 'all');
    expect(purged.out).toBe('purged 1 dead letter(s) from order-events/Subscriptions/all/$DeadLetterQueue');
    expect(await peekAll(bus.client, 'order-events/Subscriptions/all', 'deadLetter')).toEqual([]);
  });
});
