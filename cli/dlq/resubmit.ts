import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { resubmission } from '../../src/core/index.js';
import { CliError } from '../errors.js';
import { messageIdText } from '../ids.js';
import { QUEUES, peekAll, withServiceBus } from '../serviceBus.js';
import type { CliSettings } from '../settings.js';
import { deadLetterRow, matchesId, type DeadLetterRow } from './deadLetterRow.js';
import { assertMessageIdLength, checkedCorrection, entryKey, highestResubmitCounts, resubmissionMessage } from './resubmission.js';

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
  /** How long one receive waits for more dead letters. @default 2000 */
  receiveWaitMs?: number;
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
}

/**
 * Resubmits dead letters to their queue (rule 10). Each selected dead letter is received with a lock, its copy
 * sent, and only then completed; the others received on the way are abandoned at the end. Settlements run one
 * at a time, each awaited: rhea merges same-tick dispositions of one receiver into the first one's outcome.
 * A copy is numbered `<entryId>.r<n>`, n = 1 + the highest `resubmitCount` on any dead letter of the same entry
 * (session and `entryId`) — and above the copies this run already sent of it, which the broker would otherwise
 * drop as duplicates. A copy whose `<id>.r<n>` would exceed 128 characters (a `ledger` dead letter with a long
 * `ledgerId`), or whose correction changes the entry, is refused with a `CliError` before it is sent — before
 * anything is, for the length, when no correction is given.
 */
export async function runDlqResubmit(options: DlqResubmitOptions): Promise<ResubmitReport> {
  const queue = options.queue ?? QUEUES.orders;
  const ids = options.ids ?? [];
  if (ids.length === 0 && options.reason === undefined && !options.all) {
    throw new CliError('InvalidOption', 'Say which dead letters to resubmit.', 'Pass ids (see `convoy dlq list`), --reason <reason>, or --all.');
  }
  const selected = (row: DeadLetterRow): boolean =>
    (ids.length === 0 || ids.some((id) => matchesId(row, id))) && (options.reason === undefined || row.reason === options.reason);

  return withServiceBus(options.settings, async (client) => {
    const peeked = (await peekAll(client, queue, 'deadLetter')).map(deadLetterRow);
    const notFound = ids.filter((id) => !peeked.some((row) => matchesId(row, id)));
    const highest = highestResubmitCounts(peeked);
    const next = (row: DeadLetterRow) => resubmission(row.entryId, [highest.get(entryKey(row.sessionId, row.entryId)) ?? 0, row.resubmitCount]);
    // Uncorrected copies keep their ids: refuse an over-long one before anything is received or sent.
    if (!options.correct) {
      for (const row of peeked.filter(selected)) assertMessageIdLength(next(row).messageId);
    }
    const wanted = new Set(peeked.filter(selected).map((row) => row.sequenceNumber));
    const resubmitted: Resubmitted[] = [];
    if (wanted.size === 0) return { resubmitted, notFound };

    const receiver = client.createReceiver(queue, { subQueueType: 'deadLetter', receiveMode: 'peekLock' });
    const sender = client.createSender(queue);
    const held: ServiceBusReceivedMessage[] = [];
    try {
      while (wanted.size > 0) {
        const batch = await receiver.receiveMessages(Math.min(100, wanted.size + 10), { maxWaitTimeInMs: options.receiveWaitMs ?? 2_000 });
        if (batch.length === 0) break;
        held.push(...batch);
        for (const message of batch) {
          const row = deadLetterRow(message);
          if (!wanted.has(row.sequenceNumber)) continue;
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
          wanted.delete(row.sequenceNumber);
          resubmitted.push({ sequenceNumber: row.sequenceNumber, entryId: row.entryId, sessionId: row.sessionId, messageId: messageIdText(copy.messageId) });
        }
      }
    } finally {
      // Give back what was locked but not resubmitted (not selected, or the correction failed), one at a time.
      for (const message of held) await receiver.abandonMessage(message).catch(() => undefined);
      await sender.close();
      await receiver.close();
    }
    return { resubmitted, notFound };
  });
}
