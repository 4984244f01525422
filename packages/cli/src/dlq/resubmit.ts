import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { resubmission } from 'ledger-convoy/core';
import { CliError } from '../errors.js';
import { messageIdText } from '../ids.js';
import { peekAll, peekSequenceNumbers, subscriptionOf, withServiceBus } from '../serviceBus.js';
import type { CliSettings } from '../settings.js';
import { deadLetterRow, matchesId, type DeadLetterRow } from './deadLetterRow.js';
import {
  DLQ_RECEIVE_TIMEOUT_MS,
  receiveSelected,
  sequenceList,
  type ReceiveSelectedOutcome,
} from './receiveSelected.js';
import {
  assertMessageIdLength,
  checkedCorrection,
  entryKey,
  highestResubmitCounts,
  resubmissionMessage,
} from './resubmission.js';
import { QueueName } from 'ledger-convoy/core';

/** Options of {@link runDlqResubmit}. Select with `ids`, `reason` (both narrow) or `all`. */
export interface DlqResubmitOptions {
  settings: CliSettings;
  /** @default 'orders' */
  queue?: string;
  /** Sequence numbers, message ids or entry ids. @default [] */
  ids?: string[];
  /** Only dead letters with this reason. */
  reason?: string;
  /** Every dead letter (that matches `reason`, if given). @default false */
  all?: boolean;
  /**
   * Returns the corrected body of a dead letter (`--edit`, `--body`); the original is sent when absent. A correction
   * of an entry must be a valid entry that keeps its `entryId`, `sequence` and order (see `checkedCorrection`).
   */
  correct?: (body: unknown, row: DeadLetterRow) => unknown;
  /** How long one receive waits before the dead-letter queue is looked at again (an empty one does not end the run). @default 2000 */
  receiveWaitMs?: number;
  /**
   * How long to keep receiving until every selected dead letter came; those still locked by another receiver then
   * fail the run with a `CliError` `Timeout` naming them. @default 120000 ({@link DLQ_RECEIVE_TIMEOUT_MS})
   */
  timeoutMs?: number;
}

/** One dead letter sent back. */
export interface Resubmitted {
  sequenceNumber: string;
  entryId: string;
  sessionId: string;
  /** The new message id, `<entryId>.r<n>`. */
  messageId: string;
}

/** What {@link runDlqResubmit} did. */
export interface ResubmitReport {
  resubmitted: Resubmitted[];
  /** Requested ids no dead letter has. */
  notFound: string[];
  /** Sequence numbers of selected dead letters that left the queue before they came (resubmitted or purged elsewhere). */
  gone: string[];
}

/**
 * Why a subscription's dead letters are never resubmitted (and what to do instead): a message sent to the topic again
 * reaches every subscription, not only the one whose consumer failed, and inside the topic's duplicate-detection
 * window the broker drops it as a duplicate of the original anyway.
 */
export const NO_SUBSCRIPTION_RESUBMIT = [
  'Dead letters of a subscription are not resubmitted: sent to the topic again, an event would reach every subscription, and within the duplicate-detection window (PT1H) the broker drops it as a duplicate.',
  'Fix the downstream, hand it the event the dead letter holds (`convoy dlq show`, the same messageId it dedupes on), then purge the dead letter.',
] as const;

/**
 * Resubmits dead letters to their queue (rule 10). Each selected dead letter is received with a lock, its copy
 * sent, and only then completed; the others received on the way are abandoned at the end. Settlements run one
 * at a time, each awaited: rhea merges same-tick dispositions of one receiver into the first one's outcome.
 * A copy is numbered `<entryId>.r<n>`, n = 1 + the highest `resubmitCount` on any dead letter of the same entry
 * (session and `entryId`) — and above the copies this run already sent of it, which the broker would otherwise
 * drop as duplicates. A copy whose `<id>.r<n>` would exceed 128 characters (a `ledger` dead letter with a long
 * `ledgerId`), or whose correction changes the entry, is refused with a `CliError` before it is sent — before
 * anything is, for the length, when no correction is given.
 * Receiving goes on until every dead letter the peek selected came (or left the queue meanwhile: `gone`), however
 * slowly they are delivered; one still locked elsewhere after `timeoutMs` fails the run with a `CliError` `Timeout`
 * that names it and says what was resubmitted before.
 */
export async function runDlqResubmit(options: DlqResubmitOptions): Promise<ResubmitReport> {
  const queue = options.queue ?? QueueName.Orders;
  if (subscriptionOf(queue)) throw new CliError('InvalidOption', ...NO_SUBSCRIPTION_RESUBMIT);
  const ids = options.ids ?? [];
  if (ids.length === 0 && options.reason === undefined && !options.all) {
    throw new CliError(
      'InvalidOption',
      'Say which dead letters to resubmit.',
      'Pass ids (see `convoy dlq list`), --reason <reason>, or --all.',
    );
  }
  const selected = (row: DeadLetterRow): boolean =>
    (ids.length === 0 || ids.some((id) => matchesId(row, id))) &&
    (options.reason === undefined || row.reason === options.reason);

  return withServiceBus(options.settings, async (client) => {
    const peeked = (await peekAll(client, queue, 'deadLetter')).map(deadLetterRow);
    const notFound = ids.filter((id) => !peeked.some((row) => matchesId(row, id)));
    const highest = highestResubmitCounts(peeked);
    const next = (row: DeadLetterRow) =>
      resubmission(row.entryId, [highest.get(entryKey(row.sessionId, row.entryId)) ?? 0, row.resubmitCount]);
    // Uncorrected copies keep their ids: refuse an over-long one before anything is received or sent.
    if (!options.correct) {
      for (const row of peeked.filter(selected)) assertMessageIdLength(next(row).messageId);
    }
    const wanted = new Set(peeked.filter(selected).map((row) => row.sequenceNumber));
    const resubmitted: Resubmitted[] = [];
    if (wanted.size === 0) return { resubmitted, notFound, gone: [] };

    const receiver = client.createReceiver(queue, { subQueueType: 'deadLetter', receiveMode: 'peekLock' });
    const sender = client.createSender(queue);
    const held: ServiceBusReceivedMessage[] = [];
    const resubmit = async (message: ServiceBusReceivedMessage): Promise<void> => {
      held.push(message);
      const row = deadLetterRow(message);
      if (!wanted.has(row.sequenceNumber)) return;
      const corrected = options.correct ? options.correct(message.body, row) : undefined;
      // Entries (the session queue's messages) keep their identity; a ledger has none of these fields.
      if (corrected !== undefined && row.sessionId !== '') {
        checkedCorrection(corrected, { entryId: row.entryId, sequence: row.sequence, sessionId: row.sessionId });
      }
      const numbered = next(row);
      const copy = resubmissionMessage(message, numbered, corrected);
      await sender.sendMessages(copy);
      highest.set(entryKey(row.sessionId, row.entryId), numbered.resubmitCount);
      await receiver.completeMessage(message);
      held.splice(held.indexOf(message), 1);
      resubmitted.push({
        sequenceNumber: row.sequenceNumber,
        entryId: row.entryId,
        sessionId: row.sessionId,
        messageId: messageIdText(copy.messageId),
      });
    };
    const timeoutMs = options.timeoutMs ?? DLQ_RECEIVE_TIMEOUT_MS;
    try {
      const outcome = await receiveSelected(receiver, wanted, {
        receiveWaitMs: options.receiveWaitMs ?? 2_000,
        timeoutMs,
        maxBatch: 100,
        present: () => peekSequenceNumbers(client, queue, 'deadLetter'),
        take: resubmit,
      });
      if (outcome.unreached.length > 0) throw timedOut(outcome, wanted.size, resubmitted, timeoutMs);
      return { resubmitted, notFound, gone: outcome.gone };
    } finally {
      // Give back what was locked but not resubmitted (not selected, or the correction failed), one at a time.
      for (const message of held) await receiver.abandonMessage(message).catch(() => undefined);
      await sender.close();
      await receiver.close();
    }
  });
}

/** The error of a run that could not receive every selected dead letter: what did not come, and what was sent. */
function timedOut(
  { unreached, gone }: ReceiveSelectedOutcome,
  selected: number,
  resubmitted: Resubmitted[],
  timeoutMs: number,
): CliError {
  const sent =
    resubmitted.length === 0
      ? 'Nothing was resubmitted.'
      : `Resubmitted: ${resubmitted.map((r) => `#${r.sequenceNumber} as ${r.messageId}`).join(', ')}.`;
  const left = gone.length === 0 ? '' : ` Left the dead-letter queue meanwhile: ${sequenceList(gone)}.`;
  return new CliError(
    'Timeout',
    `${unreached.length} of ${selected} selected dead letter(s) did not come within ${timeoutMs / 1000} s: ${sequenceList(unreached)} (another receiver holds their locks). ${sent}${left}`,
    'Run it again once their locks are released (what was resubmitted has left the dead-letter queue, so nothing goes out twice), or raise --timeout.',
  );
}
