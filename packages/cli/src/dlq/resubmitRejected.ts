import { CosmosOrderStore } from 'ledger-convoy/adapters/cosmosOrderStore';
import {
  readResubmitCount,
  rejectedDetails,
  type RejectedEntryRecord,
  resubmission,
  type RejectedDetails,
  type RejectedRecord,
} from 'ledger-convoy/core';
import type { AppSettings } from 'ledger-convoy/adapters/azureSettings';
import { hasCosmosConnection, withOrdersContainer } from '../cosmos.js';
import { CliError } from '../errors.js';
import { FunctionApi } from '../httpApi.js';
import { peekAll, withServiceBus } from '../serviceBus.js';
import { usesEmbeddedDefault, type CliSettings } from '../settings.js';
import { deadLetterRow } from './deadLetterRow.js';
import { assertMessageIdLength, checkedCorrection, entryKey, highestResubmitCounts } from './resubmission.js';
import type { Resubmitted } from './resubmit.js';
import { QueueName, errorMessage } from 'ledger-convoy/core';

/** Options of {@link runResubmitRejected}. */
export interface ResubmitRejectedOptions {
  /** Connections; a Cosmos one (`CosmosConnection`, or `--cosmos` merged in) lets the ledger id be looked up. */
  settings: CliSettings;
  orderId: string;
  /** The rejected sequence to fill. */
  sequence: number;
  /** Returns the corrected entry, given a template made from the rejected one (`--edit` / `--body`). */
  correct: (template: Record<string, unknown>) => unknown;
  /**
   * n of `<entryId>.r<n>` when the order document cannot be read (no Cosmos DB account configured); otherwise the
   * lowest n to use, since rule 10's n (1 + the highest `resubmitCount` seen) always wins over a lower one.
   * @default required without a readable order document, else rule 10's n
   */
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
 * with the rejected entry's `entryId` and sequence, `messageId = <entryId>.r<n>` like any resubmission, n = 1 + the
 * highest `resubmitCount` seen for the entry — the one its `rejected` record keeps, and those of its dead letters
 * (an earlier correction may have been dead-lettered) — and with its `correlationId` (its ledger, rule 10):
 * `options.correlationId`, else the one its rejected document keeps, else none. Both are read from Cosmos DB (the HTTP view carries neither field); without an account to read it from, `options.attempt` must say n.
 * @throws CliError `InvalidOption` for a correction that is invalid or changes the entry, or n unknown; nothing is sent.
 */
export async function runResubmitRejected(options: ResubmitRejectedOptions): Promise<ResubmittedRejected> {
  const view = await new FunctionApi(options.settings).getOrder(options.orderId);
  const rejected = view?.rejected.find((r) => r.sequence === options.sequence);
  if (!rejected) {
    throw new CliError(
      'NotFound',
      `Order ${options.orderId} has no rejected entry at sequence ${options.sequence}.`,
      `See \`convoy dlq list --order ${options.orderId}\`.`,
    );
  }
  const template = {
    entryId: rejected.entryId,
    orderId: options.orderId,
    sequence: options.sequence,
    type: '',
    data: {},
  };
  const entry = checkedCorrection(options.correct(template), {
    entryId: rejected.entryId,
    sequence: options.sequence,
    sessionId: options.orderId,
  });
  const needsRecord = options.correlationId === undefined || options.attempt === undefined;
  const record = needsRecord
    ? await storedRejection(options.settings, options.orderId, options.sequence, rejected.entryId)
    : undefined;
  if (record === null) {
    throw new CliError(
      'NotFound',
      `Order ${options.orderId}'s document has no rejected entry ${rejected.entryId} at sequence ${options.sequence}: it changed meanwhile.`,
      `See \`convoy dlq list --order ${options.orderId}\`. Nothing was sent.`,
    );
  }
  if (record === undefined && options.attempt === undefined) {
    throw new CliError(
      'InvalidOption',
      `Cannot number the correction of ${rejected.entryId}: the count of its earlier resubmissions is kept in the order document, and no Cosmos DB account is configured to read it from.`,
      'Pass --cosmos <connection> (or set CosmosConnection), or --attempt <n> with n = 1 + the corrections already sent for this entry. Nothing was sent.',
    );
  }
  const correlationId = options.correlationId ?? record?.details?.correlationId ?? undefined;
  const next = await withServiceBus(options.settings, async (client) => {
    // Its dead letters count too (rule 10): an earlier correction that failed at once was dead-lettered, not rejected.
    const deadLetters = highestResubmitCounts(
      (await peekAll(client, QueueName.Orders, 'deadLetter')).map(deadLetterRow),
    );
    const numbered = resubmission(entry.entryId, [
      // Absent when it is 0.
      readResubmitCount({ resubmitCount: record?.record.resubmitCount }),
      deadLetters.get(entryKey(entry.orderId, entry.entryId)) ?? 0,
      (options.attempt ?? 1) - 1,
    ]);
    assertMessageIdLength(numbered.messageId);
    const sender = client.createSender(QueueName.Orders);
    try {
      await sender.sendMessages({
        messageId: numbered.messageId,
        sessionId: entry.orderId,
        ...(correlationId !== undefined ? { correlationId } : {}),
        contentType: 'application/json',
        body: entry,
        applicationProperties: { sequence: entry.sequence, type: entry.type, resubmitCount: numbered.resubmitCount },
      });
    } finally {
      await sender.close();
    }
    return numbered;
  });
  return {
    sequenceNumber: '',
    entryId: entry.entryId,
    sessionId: entry.orderId,
    messageId: next.messageId,
    correlationId,
  };
}

/**
 * The order's rejected record of `entryId` at `sequence` (its resubmission count), read from the order document, with its
 * details (its ledger id) from its own document: `null` when
 * the order has no such record (any more), undefined when it cannot be read because no Cosmos DB account is
 * configured or only the embedded emulator was assumed and it does not answer.
 * @throws CliError `Cosmos` when a configured account cannot be read (nothing has been sent).
 */
async function storedRejection(
  settings: CliSettings,
  orderId: string,
  sequence: number,
  entryId: string,
): Promise<{ record: RejectedRecord; details: RejectedDetails | undefined } | null | undefined> {
  const app: AppSettings = settings.app;
  if (!hasCosmosConnection(app)) return undefined;
  const assumed = usesEmbeddedDefault(settings, app, 'CosmosConnection');
  try {
    return await withOrdersContainer(app, async (container) => {
      const store = new CosmosOrderStore(container);
      const record = (await store.readOrder(orderId))?.doc.rejected.find(
        (r) => r.sequence === sequence && r.entryId === entryId,
      );
      if (!record) return null;
      // The entry's record, by its entryId (whatever consumer name the processor runs with): one query of the partition.
      const { resources } = await container.items
        .query<RejectedEntryRecord>(
          {
            query: "SELECT * FROM c WHERE c.orderId = @o AND c.docType = 'entry' AND c.entryId = @e",
            parameters: [
              { name: '@o', value: orderId },
              { name: '@e', value: entryId },
            ],
          },
          { partitionKey: orderId },
        )
        .fetchAll();
      return { record, details: rejectedDetails(resources[0]) };
    });
  } catch (error) {
    if (error instanceof CliError) throw error;
    // Nobody named this account: the embedded emulator was a guess, so its absence only makes the record unknown.
    if (assumed) return undefined;
    throw new CliError(
      'Cosmos',
      `Cannot read order ${orderId} from Cosmos DB for its ledger id and resubmission count (${errorMessage(error)}).`,
      'Pass --correlation-id <ledgerId> and --attempt <n> to skip the lookup, or fix --cosmos / CosmosConnection. Nothing was sent.',
      { cause: error },
    );
  }
}
