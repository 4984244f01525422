/**
 * Ledger splitter: `ledger` queue → one session message per entry on `orders` (Sequential Convoy fan-out).
 */
import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { MessageTooLargeError, sendInBatches, serviceBusMessageOf } from '../adapters/serviceBusBatchSender.js';
import { normaliseTriggerInput, settlementFor } from '../adapters/functionsSettlement.js';
import type { FunctionsSettlementActions, FunctionsTriggerInput } from '../adapters/functionsSettlement.js';
import { inMessageSpan, inSendSpan, settledAs, type Disposition } from '../adapters/telemetryTraceContext.js';
import type { Span } from '@opentelemetry/api';
import { normaliseBody } from '../core/schemas/body.js';
import { ORDER_ID_MAX_LENGTH } from '../core/schemas/limits.js';
import { messageTraceparent } from '../core/traceContext.js';
import { DeadLetterReason, MAX_DEAD_LETTER_DESCRIPTION } from '../core/deadLetterReasons.js';
import { planLedger } from '../core/splitter/planLedger.js';
import { QueueName } from '../core/queueNames.js';
import { defineFunction, SETTLED_BY_HANDLER, type AppContext } from './appContext.js';

/**
 * Handles one ledger message (`sdkBinding` input `{ messages, actions }`).
 *
 * - Invalid ledger (size, JSON, schema, cross-entry rules): dead-lettered whole as `SchemaValidationFailed` with the
 *   issues as description; nothing is sent (rule 9).
 * - An entry whose message exceeds the `orders` queue's maximum message size (a ledger under its own byte limit can
 *   still hold one): found while every batch is built, before the first send, so the ledger is dead-lettered whole
 *   as `SchemaValidationFailed` naming the entry, and nothing is sent (rule 9). Abandoning it instead would fail
 *   the same way on every delivery until `MaxDeliveryCountExceeded`.
 * - Valid: every entry goes to `orders` in ledger order, in as few batches as fit, each carrying the ledger's
 *   trace context; the ledger is completed only after the last batch was sent. A failed send abandons it: the
 *   redelivery re-sends identical messages, which broker duplicate detection and rule 2 absorb.
 *
 * Logs name the ledger by the body's `ledgerId` (the `messageId` is transport only), when the body has one.
 *
 * Lock: the host renews the ledger's lock automatically up to `maxAutoLockRenewalDuration` (host.json, 5 minutes);
 * for ledgers that take longer to send, the splitter also renews it itself before a batch once half the
 * `LEDGER_LOCK_DURATION` has passed since the last renewal.
 * @internal
 */
export async function ledgerSplitter(app: AppContext, input: unknown): Promise<void> {
  const trigger = normaliseTriggerInput(input);
  const { message } = trigger;
  const span = {
    queue: QueueName.Ledger,
    messageId: message.messageId,
    deliveryCount: message.deliveryCount,
    traceparent: messageTraceparent(message.applicationProperties),
  };
  await inMessageSpan(span, async (s) => settledAs(s, await split(app, trigger, s)));
}

async function split(
  app: AppContext,
  { message, body, actions }: FunctionsTriggerInput,
  span: Span,
): Promise<Disposition> {
  const { telemetry } = app;
  const settlement = settlementFor(actions, message);
  const fields = { messageId: message.messageId, deliveryCount: message.deliveryCount };
  // Rule 9: the ledger goes whole, or not at all.
  const deadLetter = async (ledgerId: string | undefined, why: string): Promise<Disposition> => {
    const description = why.slice(0, MAX_DEAD_LETTER_DESCRIPTION);
    await settlement.deadLetter(DeadLetterReason.SchemaValidationFailed, description);
    telemetry.log('warn', 'ledger dead-lettered', {
      ...fields,
      ledgerId,
      outcome: 'deadLettered',
      reason: DeadLetterReason.SchemaValidationFailed,
      description,
    });
    return 'dead_letter';
  };

  const plan = planLedger(body);
  if (!plan.ok) return deadLetter(readableLedgerId(body), plan.description);

  const ledgerId = plan.ledger.ledgerId;
  const renew = lockRenewal(actions, message, app.ledgerLockDurationMs / 2, app);
  let sent;
  let traceparent: string | undefined;
  try {
    // One send span for the fan-out: the entries carry its trace context, so each entry's processing is its child.
    sent = await inSendSpan(QueueName.Orders, { count: plan.messages.length }, span, (tp) => {
      traceparent = tp;
      const messages = plan.messages.map((planned) => serviceBusMessageOf(planned, tp));
      return sendInBatches(app.sender(QueueName.Orders), messages, { beforeSend: renew });
    });
  } catch (error) {
    if (error instanceof MessageTooLargeError) {
      // Nothing was sent: the batches are all built before the first send.
      const entry = plan.ledger.entries[error.index];
      return deadLetter(
        ledgerId,
        `entries[${error.index}] (entryId ${entry?.entryId ?? '?'}): its ${QueueName.Orders} message does not fit the queue's ` +
          `maximum message size (${error.maxSizeInBytes} bytes); nothing of the ledger was sent`,
      );
    }
    telemetry.log('error', 'ledger fan-out failed; abandoning it', {
      ...fields,
      ledgerId,
      outcome: 'abandoned',
      error: describe(error),
    });
    await settlement.abandon();
    return 'abandon';
  }
  await settlement.complete();
  telemetry.log('debug', 'ledger fanned out', {
    ...fields,
    ledgerId,
    outcome: 'completed',
    entries: sent.messages,
    batches: sent.batches,
    traceparent,
  });
  return 'complete';
}

/** The body's `ledgerId` when it is readable text (an invalid ledger may still name itself); else undefined. */
function readableLedgerId(body: unknown): string | undefined {
  const parsed = normaliseBody(body);
  if (!parsed.ok || typeof parsed.value !== 'object' || parsed.value === null) return undefined;
  const ledgerId = (parsed.value as { ledgerId?: unknown }).ledgerId;
  return typeof ledgerId === 'string' && ledgerId !== '' ? ledgerId.slice(0, ORDER_ID_MAX_LENGTH) : undefined;
}

/**
 * A `beforeSend` hook renewing the ledger's lock when `everyMs` have passed on the app's clock since it was last
 * taken or renewed.
 */
function lockRenewal(
  actions: FunctionsSettlementActions,
  message: ServiceBusReceivedMessage,
  everyMs: number,
  { clock, telemetry }: Pick<AppContext, 'clock' | 'telemetry'>,
): () => Promise<void> {
  let renewedAt = clock.now();
  return async () => {
    if (clock.now() - renewedAt < everyMs) return;
    try {
      await actions.renewMessageLock(message);
      renewedAt = clock.now();
    } catch (error) {
      // The host may still hold the lock (it renews on its own); if not, completing fails and the ledger comes back.
      telemetry.log('warn', 'ledger lock renewal failed', { messageId: message.messageId, error: describe(error) });
    }
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** The function: one `ledger` message at a time, settled by the handler. */
export const ledgerSplitterFunction = defineFunction('serviceBusQueue', 'ledgerSplitter', ledgerSplitter, {
  ...SETTLED_BY_HANDLER,
  queueName: QueueName.Ledger,
});
