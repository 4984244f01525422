import { Command, Option } from 'commander';
import { CosmosOutboxStore } from '../../src/adapters/outboxCosmosStore.js';
import { OutboxStatus } from '../../src/core/documents/outboxRecord.js';
import { retryOutboxRecord } from '../../src/core/outbox/outboxDispatch.js';
import type { OutboxDispatchRecord } from '../../src/core/outbox/outboxRecordState.js';
import { withCosmosFlag, withOrdersContainer } from '../cosmos.js';
import { CliError } from '../errors.js';
import type { CliIo } from '../io.js';
import { wholeNumber } from '../options.js';
import { addConnectionOptions, resolveCliSettings, type ConnectionFlags } from '../settings.js';
import { table } from '../table.js';

/** What {@link retryOutbox} did. */
export interface OutboxRetryResult {
  orderId: string;
  /** Ids of the records set back to `pending`. */
  retried: string[];
  /** Ids of failed records that changed while being retried (run the command again). */
  raced: string[];
}

/**
 * Sets the `failed` outbox records of `orderId` (only the one of `entryId`, when given) back to `pending` with
 * no attempts, each conditional on its ETag; the dispatcher's next pass or sweep delivers them, in sequence
 * order, and the order's later records follow. Throws `CliError` `NotFound` when there is nothing to retry.
 */
export async function retryOutbox(store: CosmosOutboxStore, target: { orderId: string; entryId?: string }): Promise<OutboxRetryResult> {
  const open = await store.openRecords(target.orderId);
  const failed = open.filter((s) => s.doc.status === OutboxStatus.Failed && (target.entryId === undefined || s.doc.entryId === target.entryId));
  if (failed.length === 0) {
    const which = target.entryId === undefined ? `order ${target.orderId}` : `entry ${target.entryId} of order ${target.orderId}`;
    throw new CliError('NotFound', `No failed outbox record for ${which}.`, 'List them with `convoy outbox list --status failed`.');
  }
  const result: OutboxRetryResult = { orderId: target.orderId, retried: [], raced: [] };
  for (const stored of failed) {
    const retried = retryOutboxRecord(stored.doc)!;
    if ((await store.replace(retried, stored.etag)) === undefined) result.raced.push(stored.doc.id);
    else result.retried.push(stored.doc.id);
  }
  return result;
}

/** Outbox records for operators, by order and sequence. */
export function listOutbox(store: CosmosOutboxStore, filter: { status?: OutboxStatus; orderId?: string; limit?: number } = {}): Promise<OutboxDispatchRecord[]> {
  return store.list(filter);
}

interface OutboxFlags extends ConnectionFlags {
  cosmos?: string;
  json?: boolean;
}

/** `convoy outbox list | retry`. */
export function outboxCommand(io: CliIo): Command {
  const outbox = new Command('outbox').description('Inspect outbox records and retry the failed ones that hold their orders');
  const withCosmos = (command: Command): Command =>
    addConnectionOptions(command.option('--cosmos <connection>', 'Cosmos DB connection string (else $CosmosConnection, else local.settings.json)'));

  outbox.addCommand(
    withCosmos(new Command('list'))
      .description('List outbox records (default: every status)')
      .addOption(new Option('--status <status>', 'only this status').choices(Object.values(OutboxStatus)))
      .option('--order <id>', 'only this order')
      .option('--limit <n>', 'at most this many records', wholeNumber(1), 1000)
      .option('--json', 'print JSON')
      .action((flags: OutboxFlags & { status?: OutboxStatus; order?: string; limit: number }) =>
        withStore(flags, async (store) => {
          const records = await listOutbox(store, { status: flags.status, orderId: flags.order, limit: flags.limit });
          io.out(flags.json ? JSON.stringify(records, null, 2) : formatRecords(records));
        }),
      ),
  );

  outbox.addCommand(
    withCosmos(new Command('retry'))
      .description("Set an order's failed outbox records back to pending (attempts 0); its later records follow in order")
      .argument('<orderId>', 'the order whose failed records to retry')
      .option('--entry <entryId>', 'only the record of this entry')
      .option('--json', 'print JSON')
      .action((orderId: string, flags: OutboxFlags & { entry?: string }) =>
        withStore(flags, async (store) => {
          const result = await retryOutbox(store, { orderId, entryId: flags.entry });
          if (flags.json) io.out(JSON.stringify(result, null, 2));
          else {
            io.out(`retried ${result.retried.length}: ${result.retried.join(', ') || '-'}`);
            if (result.raced.length > 0) io.err(`changed meanwhile, not retried (run again): ${result.raced.join(', ')}`);
          }
        }),
      ),
  );
  return outbox;
}

async function withStore(flags: OutboxFlags, work: (store: CosmosOutboxStore) => Promise<void>): Promise<void> {
  await withOrdersContainer(withCosmosFlag(resolveCliSettings(flags).app, flags.cosmos), (container) => work(new CosmosOutboxStore(container)));
}

function formatRecords(records: readonly OutboxDispatchRecord[]): string {
  if (records.length === 0) return 'no outbox records';
  return table(
    ['order', 'seq', 'entry', 'status', 'attempts', 'last error'],
    records.map((r) => [r.orderId, r.sequence, r.entryId, r.status, r.attempts, r.lastError ?? '-']),
  );
}
