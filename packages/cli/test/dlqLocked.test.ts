import type { ServiceBusReceivedMessage, ServiceBusReceiver } from '@azure/service-bus';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runDlqList } from '../src/dlq/list.js';
import { runDlqPurge } from '../src/dlq/purge.js';
import { runDlqResubmit } from '../src/dlq/resubmit.js';
import { peekEverything, receiveExactly, until } from '../../../test/support/serviceBusWaits.js';
import { deadLetterEntries, startCliBus, type CliTestBus } from './support.js';

const entry = (orderId: string, sequence: number) => ({
  entryId: `${orderId}-e${sequence}`,
  orderId,
  sequence,
  type: 'TransactionAdded',
  data: { transactionId: `t${sequence}`, amount: 100 },
});

/**
 * A dead letter that another receiver holds locked, as a second operator's run would: `dlq` cannot receive it until
 * the holder lets it go. The broker's clock (`Date`) is frozen for the test, so the lock cannot run out by itself
 * however slow the machine is; the waits of the helpers and of the CLI measure on the monotonic clock.
 */
interface HeldDeadLetter {
  sequenceNumber: string;
  release(): Promise<void>;
  remove(): Promise<void>;
}

describe('convoy dlq resubmit and purge, with dead letters that come slowly or not at all', () => {
  let bus: CliTestBus;
  let holder: ServiceBusReceiver;
  beforeEach(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    bus = await startCliBus();
    holder = bus.client.createReceiver('orders', { subQueueType: 'deadLetter', maxAutoLockRenewalDurationInMs: 0 });
  });
  afterEach(async () => {
    await holder.close();
    await bus.close();
    vi.useRealTimers();
  });

  /** Dead-letters one entry of `orderId` and takes its lock; call it before any other dead letter exists. */
  async function holdDeadLetter(orderId: string): Promise<HeldDeadLetter> {
    await deadLetterEntries(bus.client, [
      { body: entry(orderId, 2), sessionId: orderId, messageId: `${orderId}-held`, reason: 'InvalidTransition' },
    ]);
    const [message] = (await receiveExactly(holder, 1, 'the dead letter to hold')) as [ServiceBusReceivedMessage];
    return {
      sequenceNumber: String(message.sequenceNumber),
      release: () => holder.abandonMessage(message),
      remove: () => holder.completeMessage(message),
    };
  }

  /** The next copy on `orderId`'s session, completed: proof that the run got that far. */
  async function copyOn(orderId: string): Promise<ServiceBusReceivedMessage> {
    const session = await bus.client.acceptSession('orders', orderId);
    try {
      const [copy] = (await receiveExactly(session, 1, `copies on ${orderId}`)) as [ServiceBusReceivedMessage];
      await session.completeMessage(copy);
      return copy;
    } finally {
      await session.close();
    }
  }

  it('goes on receiving past empty receives until every selected dead letter came, and resubmits them all', async () => {
    // Prepare: o-held's dead letter is locked elsewhere; o-free's comes at once.
    const held = await holdDeadLetter('o-held');
    await deadLetterEntries(bus.client, [
      { body: entry('o-free', 2), sessionId: 'o-free', messageId: 'o-free-x', reason: 'InvalidTransition' },
    ]);
    // Act: the run resubmits o-free, then waits (short receives, each empty) until the holder lets the other go.
    const run = runDlqResubmit({ settings: bus.settings, reason: 'InvalidTransition', receiveWaitMs: 50 });
    await copyOn('o-free');
    await held.release();
    const report = await run;
    // Assess
    expect(report.resubmitted.map((r) => r.messageId)).toEqual(['o-free-e2.r1', 'o-held-e2.r1']);
    expect(report.gone).toEqual([]);
    expect((await copyOn('o-held')).messageId).toBe('o-held-e2.r1');
    expect((await runDlqList({ settings: bus.settings })).deadLetters).toEqual([]);
  });

  it('fails with a Timeout naming the dead letters that did not come, and resubmits them once they are free', async () => {
    // Prepare
    const held = await holdDeadLetter('o-held');
    // Act
    const act = runDlqResubmit({ settings: bus.settings, all: true, receiveWaitMs: 50, timeoutMs: 300 });
    // Assess: nothing went out, the dead letter is still there, and the error says which one and why.
    await expect(act).rejects.toMatchObject({
      code: 'Timeout',
      message: `1 of 1 selected dead letter(s) did not come within 0.3 s: #${held.sequenceNumber} (another receiver holds their locks). Nothing was resubmitted.`,
      hint: expect.stringContaining('--timeout'),
    });
    expect((await runDlqList({ settings: bus.settings })).deadLetters.map((d) => d.sequenceNumber)).toEqual([
      held.sequenceNumber,
    ]);
    const session = await bus.client.acceptSession('orders', 'o-held');
    expect(await peekEverything(session)).toEqual([]);
    await session.close();
    // Once the holder lets go, the same command does it.
    await held.release();
    const again = await runDlqResubmit({ settings: bus.settings, all: true });
    expect(again.resubmitted.map((r) => r.sequenceNumber)).toEqual([held.sequenceNumber]);
  });

  it('reports a selected dead letter that left the queue meanwhile as gone instead of waiting for it', async () => {
    // Prepare
    const held = await holdDeadLetter('o-held');
    await deadLetterEntries(bus.client, [
      { body: entry('o-free', 2), sessionId: 'o-free', messageId: 'o-free-x', reason: 'InvalidTransition' },
    ]);
    // Act: after the peek (o-free's copy is out), the holder settles its dead letter itself.
    const run = runDlqResubmit({ settings: bus.settings, all: true, receiveWaitMs: 50 });
    await copyOn('o-free');
    await held.remove();
    const report = await run;
    // Assess
    expect(report.resubmitted.map((r) => r.entryId)).toEqual(['o-free-e2']);
    expect(report.gone).toEqual([held.sequenceNumber]);
  });

  it('purges what comes slowly, and fails with a Timeout naming what another receiver keeps locked', async () => {
    // Prepare
    const held = await holdDeadLetter('o-held');
    await deadLetterEntries(bus.client, [
      { body: entry('o-free', 2), sessionId: 'o-free', messageId: 'o-free-x', reason: 'InvalidTransition' },
    ]);
    const deadLetterOrders = async () => (await peekEverything(holder)).map((m) => m.sessionId);
    // Act 1: the held one never comes within the timeout.
    const timedOut = runDlqPurge({ settings: bus.settings, yes: true, receiveWaitMs: 50, timeoutMs: 300 });
    // Assess 1: it is named; whatever else was purged by then is counted in the message.
    await expect(timedOut).rejects.toMatchObject({
      code: 'Timeout',
      message: expect.stringMatching(
        new RegExp(
          `^1 dead letter\\(s\\) of orders were not purged within 0\\.3 s: #${held.sequenceNumber} \\(another receiver holds their locks\\)\\. Purged [01]\\.$`,
        ),
      ),
    });
    expect(await deadLetterOrders()).toContain('o-held');
    // Act 2: a purge that starts while it is held, and sees it let go only after the rest is gone.
    await deadLetterEntries(bus.client, [
      { body: entry('o-more', 2), sessionId: 'o-more', messageId: 'o-more-x', reason: 'InvalidTransition' },
    ]);
    const purging = runDlqPurge({ settings: bus.settings, yes: true, receiveWaitMs: 50 });
    await until(
      async () => (await deadLetterOrders()).every((id) => id === 'o-held'),
      'everything but the held dead letter purged',
    );
    await held.release();
    // Assess 2
    expect(await purging).toBeGreaterThanOrEqual(2);
    expect(await deadLetterOrders()).toEqual([]);
  });
});
