/**
 * Ledger splitter: `ledger` queue → one session message per entry on `orders` (Sequential Convoy fan-out).
 */
import type { InvocationContext } from '@azure/functions';
import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { sendInBatches, toOrderEntryMessage } from '../adapters/serviceBusBatchSender.js';
import { ensureServiceBusSdkBinding, normaliseTriggerInput, settlementFor } from '../adapters/functionsSettlement.js';
import type { FunctionsSettlementActions, FunctionsTriggerInput } from '../adapters/functionsSettlement.js';
import { currentOrNewTraceparent, inMessageSpan, traceProperties } from '../adapters/telemetryTraceContext.js';
import { messageTraceparent } from '../core/traceContext.js';
import { DeadLetterReason } from '../core/deadLetterReasons.js';
import { MAX_DEAD_LETTER_DESCRIPTION } from '../core/processor/settle.js';
import { planLedger } from '../core/splitter/planLedger.js';
import type { Telemetry } from '../core/ports/telemetry.js';
import { QueueName, SERVICE_BUS_CONNECTION, appContext } from './appContext.js';
import { register } from './register.js';

/**
 * Handles one ledger message (`sdkBinding` input `{ messages, actions }`).
 *
 * - Invalid ledger (size, JSON, schema, cross-entry rules): dead-lettered whole as `SchemaValidationFailed` with the
 *   issues as description; nothing is sent (rule 9).
 * - Valid: every entry goes to `orders` in ledger order, in as few batches as fit, each carrying the ledger's
 *   trace context; the ledger is completed only after the last batch was sent. A failed send abandons it: the
 *   redelivery re-sends identical messages, which broker duplicate detection and rule 2 absorb.
 *
 * Lock: the host renews the ledger's lock automatically up to `maxAutoLockRenewalDuration` (host.json, 5 minutes);
 * for ledgers that take longer to send, the splitter also renews it itself before a batch once half the
 * `LEDGER_LOCK_DURATION` has passed since the last renewal.
 */
export async function ledgerSplitter(input: unknown, _context: InvocationContext): Promise<void> {
  const trigger = normaliseTriggerInput(input);
  await inMessageSpan(`${QueueName.Ledger} process`, messageTraceparent(trigger.message.applicationProperties), () => split(trigger));
}

async function split({ message, body, actions }: FunctionsTriggerInput): Promise<void> {
  const app = appContext();
  const { telemetry } = app;
  const settlement = settlementFor(actions, message);
  const fields = { ledgerId: String(message.messageId ?? ''), messageId: message.messageId, deliveryCount: message.deliveryCount };

  const plan = planLedger(body);
  if (!plan.ok) {
    const description = plan.description.slice(0, MAX_DEAD_LETTER_DESCRIPTION);
    await settlement.deadLetter(DeadLetterReason.SchemaValidationFailed, description);
    telemetry.log('warn', 'ledger dead-lettered', { ...fields, outcome: 'deadLettered', reason: DeadLetterReason.SchemaValidationFailed, description });
    return;
  }

  const ledgerId = plan.ledger.ledgerId;
  const traceparent = messageTraceparent(message.applicationProperties) ?? currentOrNewTraceparent();
  const messages = plan.messages.map((planned) => toOrderEntryMessage(planned, traceProperties(traceparent)));
  const renew = lockRenewal(actions, message, app.functionSettings.ledgerLockDurationMs / 2, telemetry);
  let sent;
  try {
    sent = await sendInBatches(app.sender(QueueName.Orders), messages, { beforeSend: renew });
  } catch (error) {
    telemetry.log('error', 'ledger fan-out failed; abandoning it', { ...fields, ledgerId, outcome: 'abandoned', error: describe(error) });
    await settlement.abandon();
    return;
  }
  await settlement.complete();
  telemetry.log('info', 'ledger fanned out', { ...fields, ledgerId, outcome: 'completed', entries: sent.messages, batches: sent.batches, traceparent });
}

/** A `beforeSend` hook renewing the ledger's lock when `everyMs` have passed since it was last taken or renewed. */
function lockRenewal(actions: FunctionsSettlementActions, message: ServiceBusReceivedMessage, everyMs: number, telemetry: Telemetry): () => Promise<void> {
  let renewedAt = Date.now();
  return async () => {
    if (Date.now() - renewedAt < everyMs) return;
    try {
      await actions.renewMessageLock(message);
      renewedAt = Date.now();
    } catch (error) {
      // The host may still hold the lock (it renews on its own); if not, completing fails and the ledger comes back.
      telemetry.log('warn', 'ledger lock renewal failed', { messageId: message.messageId, error: describe(error) });
    }
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

ensureServiceBusSdkBinding();
register.serviceBusQueue('ledgerSplitter', {
  connection: SERVICE_BUS_CONNECTION,
  queueName: QueueName.Ledger,
  sdkBinding: true,
  autoCompleteMessages: false,
  cardinality: 'one',
  handler: ledgerSplitter,
});
