import { CliError } from '../errors.js';
import { QUEUES, withServiceBus } from '../serviceBus.js';
import type { CliSettings } from '../settings.js';

/** Options of {@link runDlqPurge}. */
export interface DlqPurgeOptions {
  settings: CliSettings;
  /** @default 'orders' */
  queue?: string;
  /** Must be true: purging cannot be undone. */
  yes: boolean;
}

/** Deletes every dead letter of the queue; resolves with how many. */
export async function runDlqPurge(options: DlqPurgeOptions): Promise<number> {
  const queue = options.queue ?? QUEUES.orders;
  if (!options.yes) {
    throw new CliError('InvalidOption', `Purging ${queue}/$DeadLetterQueue deletes its dead letters for good.`, 'Add --yes to confirm.');
  }
  return withServiceBus(options.settings, async (client) => {
    const receiver = client.createReceiver(queue, { subQueueType: 'deadLetter', receiveMode: 'receiveAndDelete' });
    try {
      let purged = 0;
      for (;;) {
        const batch = await receiver.receiveMessages(250, { maxWaitTimeInMs: 1_000 });
        if (batch.length === 0) return purged;
        purged += batch.length;
      }
    } finally {
      await receiver.close();
    }
  });
}
