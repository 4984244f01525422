import type { DeadLetterReason } from 'ledger-convoy/core';
import { isCliError } from '../errors.js';
import { FunctionApi } from '../httpApi.js';
import { peekAll, withServiceBus } from '../serviceBus.js';
import type { CliSettings } from '../settings.js';
import { deadLetterRow, type DeadLetterRow } from './deadLetterRow.js';
import { QueueName } from 'ledger-convoy/core';

/** Options of {@link runDlqList}. */
export interface DlqListOptions {
  settings: CliSettings;
  /** @default 'orders' */
  queue?: string;
  /** Orders whose `rejected` entries to show besides those the dead letters' sessions name. @default [] */
  orders?: string[];
}

/** A parked entry that proved invalid when its turn came (rule 11): on the order, not on a queue. */
export interface RejectedRow {
  orderId: string;
  sequence: number;
  entryId: string;
  reason: DeadLetterReason;
}

/** What `dlq list` shows. */
export interface DlqListing {
  queue: string;
  deadLetters: DeadLetterRow[];
  rejected: RejectedRow[];
  /** Why the orders could not be read (the dead letters are listed anyway). */
  ordersUnavailable: string | undefined;
}

/**
 * Peeks the dead-letter queue (nothing changes) and reads the `rejected` entries of the orders the dead letters'
 * sessions name, plus `orders`. An unreachable function app does not hide the dead letters.
 */
export async function runDlqList(options: DlqListOptions): Promise<DlqListing> {
  const queue = options.queue ?? QueueName.Orders;
  const messages = await withServiceBus(options.settings, (client) => peekAll(client, queue, 'deadLetter'));
  const deadLetters = messages.map(deadLetterRow);
  const orderIds = [
    ...new Set([...(options.orders ?? []), ...(queue === QueueName.Orders ? deadLetters.map((d) => d.sessionId) : [])]),
  ].filter(Boolean);
  const rejected: RejectedRow[] = [];
  let ordersUnavailable: string | undefined;
  const api = new FunctionApi(options.settings);
  try {
    for (const orderId of orderIds) {
      const view = await api.getOrder(orderId);
      for (const r of view?.rejected ?? [])
        rejected.push({ orderId, sequence: r.sequence, entryId: r.entryId, reason: r.reason });
    }
  } catch (error) {
    if (!isCliError(error)) throw error;
    ordersUnavailable = error.message;
  }
  return { queue, deadLetters, rejected, ordersUnavailable };
}
