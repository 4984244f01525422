import { CliError } from '../errors.js';
import { peekAll, subscriptionOf, withServiceBus } from '../serviceBus.js';
import type { CliSettings } from '../settings.js';
import { deadLetterDetail, deadLetterRow, matchesId } from './deadLetterRow.js';
import { QueueName } from 'ledger-convoy/core';

/** Options of {@link runDlqShow}. */
export interface DlqShowOptions {
  settings: CliSettings;
  /** Sequence number, message id or entry id. */
  id: string;
  /** @default 'orders' */
  queue?: string;
}

/** Everything about the dead letters `id` names (usually one; an entry id may name several copies). */
export async function runDlqShow(options: DlqShowOptions): Promise<Record<string, unknown>[]> {
  const queue = options.queue ?? QueueName.Orders;
  const messages = await withServiceBus(options.settings, (client) => peekAll(client, queue, 'deadLetter'));
  const found = messages.filter((m) => matchesId(deadLetterRow(m), options.id));
  if (found.length === 0) {
    throw new CliError(
      'NotFound',
      `No dead letter on ${queue} has the id ${options.id}.`,
      `List them with \`convoy dlq list ${subscriptionOf(queue) ? `--subscription ${subscriptionOf(queue)?.subscription}` : `--queue ${queue}`}\`.`,
    );
  }
  return found.map(deadLetterDetail);
}
