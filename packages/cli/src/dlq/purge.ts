import { CliError } from '../errors.js';
import { peekSequenceNumbers, withServiceBus } from '../serviceBus.js';
import type { CliSettings } from '../settings.js';
import { DLQ_RECEIVE_TIMEOUT_MS, receiveSelected, sequenceList } from './receiveSelected.js';
import { QueueName } from 'ledger-convoy/core';

/** Options of {@link runDlqPurge}. */
export interface DlqPurgeOptions {
  settings: CliSettings;
  /** @default 'orders' */
  queue?: string;
  /** Must be true: purging cannot be undone. */
  yes: boolean;
  /** How long one receive waits before the dead-letter queue is looked at again (an empty one does not end the run). @default 1000 */
  receiveWaitMs?: number;
  /**
   * How long to keep receiving until every dead letter the queue held at the start is deleted; those still locked by
   * another receiver then fail the run with a `CliError` `Timeout` naming them. @default 120000 ({@link DLQ_RECEIVE_TIMEOUT_MS})
   */
  timeoutMs?: number;
}

/**
 * Deletes every dead letter the queue holds when it starts (and any that arrive and are received meanwhile);
 * resolves with how many it deleted. It goes on until each of those is deleted here or has left the queue otherwise,
 * however slowly they are delivered; one still locked elsewhere after `timeoutMs` fails the run with a `CliError`
 * `Timeout` naming it.
 */
export async function runDlqPurge(options: DlqPurgeOptions): Promise<number> {
  const queue = options.queue ?? QueueName.Orders;
  if (!options.yes) {
    throw new CliError(
      'InvalidOption',
      `Purging ${queue}/$DeadLetterQueue deletes its dead letters for good.`,
      'Add --yes to confirm.',
    );
  }
  return withServiceBus(options.settings, async (client) => {
    const present = () => peekSequenceNumbers(client, queue, 'deadLetter');
    const wanted = await present();
    if (wanted.size === 0) return 0;
    const receiver = client.createReceiver(queue, { subQueueType: 'deadLetter', receiveMode: 'receiveAndDelete' });
    const timeoutMs = options.timeoutMs ?? DLQ_RECEIVE_TIMEOUT_MS;
    try {
      let purged = 0;
      const { unreached } = await receiveSelected(receiver, wanted, {
        receiveWaitMs: options.receiveWaitMs ?? 1_000,
        timeoutMs,
        maxBatch: 250,
        present,
        take: async () => void (purged += 1),
      });
      if (unreached.length > 0) {
        throw new CliError(
          'Timeout',
          `${unreached.length} dead letter(s) of ${queue} were not purged within ${timeoutMs / 1000} s: ${sequenceList(unreached)} (another receiver holds their locks). Purged ${purged}.`,
          'Run the purge again once their locks are released, or raise --timeout.',
        );
      }
      return purged;
    } finally {
      await receiver.close();
    }
  });
}
