import { resubmission, validateEntry } from '../../src/core/index.js';
import { CliError } from '../errors.js';
import { FunctionApi } from '../httpApi.js';
import { QUEUES, withServiceBus } from '../serviceBus.js';
import type { CliSettings } from '../settings.js';
import type { Resubmitted } from './resubmit.js';

/** Options of {@link runResubmitRejected}. */
export interface ResubmitRejectedOptions {
  settings: CliSettings;
  orderId: string;
  /** The rejected sequence to fill. */
  sequence: number;
  /** Returns the corrected entry, given a template made from the rejected one (`--edit` / `--body`). */
  correct: (template: Record<string, unknown>) => unknown;
  /** n of `<entryId>.r<n>`: raise it to send a second correction of the same entry. @default 1 */
  attempt?: number;
}

/**
 * Sends a corrected entry for a `rejected` sequence of an order (rule 11). A rejected entry's message was
 * completed when it was parked, so there is no dead letter to copy: the correction goes to the order's session
 * with `messageId = <entryId>.r<n>` like any resubmission.
 */
export async function runResubmitRejected(options: ResubmitRejectedOptions): Promise<Resubmitted> {
  const view = await new FunctionApi(options.settings).getOrder(options.orderId);
  const rejected = view?.rejected.find((r) => r.sequence === options.sequence);
  if (!rejected) {
    throw new CliError('NotFound', `Order ${options.orderId} has no rejected entry at sequence ${options.sequence}.`, `See \`convoy dlq list --order ${options.orderId}\`.`);
  }
  const template = { entryId: rejected.entryId, orderId: options.orderId, sequence: options.sequence, type: '', data: {} };
  const checked = validateEntry(options.correct(template));
  if (!checked.ok) {
    const issues = checked.issues.map((i) => `${i.path || '(body)'}: ${i.message}`).join('; ');
    throw new CliError('InvalidOption', `The corrected entry is not valid: ${issues}`, 'Fix it and try again; nothing was sent.');
  }
  const entry = checked.value;
  if (entry.orderId !== options.orderId || entry.sequence !== options.sequence) {
    throw new CliError('InvalidOption', `The corrected entry must keep orderId ${options.orderId} and sequence ${options.sequence}.`);
  }
  const next = resubmission(entry.entryId, { resubmitCount: (options.attempt ?? 1) - 1 });
  await withServiceBus(options.settings, async (client) => {
    const sender = client.createSender(QUEUES.orders);
    try {
      await sender.sendMessages({
        messageId: next.messageId,
        sessionId: entry.orderId,
        contentType: 'application/json',
        body: entry,
        applicationProperties: { sequence: entry.sequence, type: entry.type, resubmitCount: next.resubmitCount },
      });
    } finally {
      await sender.close();
    }
  });
  return { sequenceNumber: '', entryId: entry.entryId, sessionId: entry.orderId, messageId: next.messageId };
}
