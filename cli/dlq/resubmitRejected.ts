import { CosmosOrderStore } from '../../src/adapters/cosmosOrderStore.js';
import { resubmission, validateEntry } from '../../src/core/index.js';
import type { AppSettings } from '../../src/adapters/azureClients.js';
import { hasCosmosConnection, withOrdersContainer } from '../cosmos.js';
import { CliError } from '../errors.js';
import { FunctionApi } from '../httpApi.js';
import { QUEUES, withServiceBus } from '../serviceBus.js';
import { usesEmbeddedDefault, type CliSettings } from '../settings.js';
import { assertMessageIdLength } from './resubmission.js';
import type { Resubmitted } from './resubmit.js';

/** Options of {@link runResubmitRejected}. */
export interface ResubmitRejectedOptions {
  /** Connections; a Cosmos one (`CosmosConnection`, or `--cosmos` merged in) lets the ledger id be looked up. */
  settings: CliSettings;
  orderId: string;
  /** The rejected sequence to fill. */
  sequence: number;
  /** Returns the corrected entry, given a template made from the rejected one (`--edit` / `--body`). */
  correct: (template: Record<string, unknown>) => unknown;
  /** n of `<entryId>.r<n>`: raise it to send a second correction of the same entry. @default 1 */
  attempt?: number;
  /** The `correlationId` (ledger id) to send; wins over the one read from Cosmos DB. @default read, else none */
  correlationId?: string;
}

/** What {@link runResubmitRejected} sent. */
export interface ResubmittedRejected extends Resubmitted {
  /** The `correlationId` it carries; undefined when neither given nor readable (the caller should warn). */
  correlationId: string | undefined;
}

/**
 * Sends a corrected entry for a `rejected` sequence of an order (rule 11). A rejected entry's message was
 * completed when it was parked, so there is no dead letter to copy: the correction goes to the order's session
 * with `messageId = <entryId>.r<n>` like any resubmission, and with the rejected entry's `correlationId` (its
 * ledger, rule 10) — `options.correlationId`, else the one the order document keeps in its `rejected` record
 * (read from Cosmos DB when the settings name an account; the HTTP view does not carry it), else none.
 */
export async function runResubmitRejected(options: ResubmitRejectedOptions): Promise<ResubmittedRejected> {
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
  assertMessageIdLength(next.messageId);
  const correlationId = options.correlationId ?? (await storedCorrelationId(options.settings, options.orderId, options.sequence));
  await withServiceBus(options.settings, async (client) => {
    const sender = client.createSender(QUEUES.orders);
    try {
      await sender.sendMessages({
        messageId: next.messageId,
        sessionId: entry.orderId,
        ...(correlationId !== undefined ? { correlationId } : {}),
        contentType: 'application/json',
        body: entry,
        applicationProperties: { sequence: entry.sequence, type: entry.type, resubmitCount: next.resubmitCount },
      });
    } finally {
      await sender.close();
    }
  });
  return { sequenceNumber: '', entryId: entry.entryId, sessionId: entry.orderId, messageId: next.messageId, correlationId };
}

/**
 * The `correlationId` of the order's rejected record at `sequence`, read from the order document; undefined when
 * no Cosmos DB account is configured, only the embedded emulator was assumed and it does not answer, or the record
 * has none.
 * @throws CliError `Cosmos` when a configured account cannot be read (nothing has been sent).
 */
async function storedCorrelationId(settings: CliSettings, orderId: string, sequence: number): Promise<string | undefined> {
  const app: AppSettings = settings.app;
  if (!hasCosmosConnection(app)) return undefined;
  const assumed = usesEmbeddedDefault(settings, app, 'CosmosConnection');
  const order = await withOrdersContainer(app, (container) => new CosmosOrderStore(container).readOrder(orderId)).catch((error: unknown) => {
    if (error instanceof CliError) throw error;
    // Nobody named this account: the embedded emulator was a guess, so its absence only costs the lookup.
    if (assumed) return undefined;
    throw new CliError(
      'Cosmos',
      `Cannot read order ${orderId} from Cosmos DB for its ledger id (${error instanceof Error ? error.message : String(error)}).`,
      'Pass --correlation-id <ledgerId> to skip the lookup, or fix --cosmos / CosmosConnection. Nothing was sent.',
      { cause: error },
    );
  });
  return order?.doc.rejected.find((r) => r.sequence === sequence)?.correlationId ?? undefined;
}
