import { Command } from 'commander';
import type { DeadLetterRow } from '../dlq/deadLetterRow.js';
import { editBody, readJsonBody } from '../dlq/editor.js';
import { runDlqList, type DlqListing } from '../dlq/list.js';
import { runDlqPurge } from '../dlq/purge.js';
import { DLQ_RECEIVE_TIMEOUT_MS } from '../dlq/receiveSelected.js';
import { NO_SUBSCRIPTION_RESUBMIT, runDlqResubmit } from '../dlq/resubmit.js';
import { runResubmitRejected } from '../dlq/resubmitRejected.js';
import { runDlqShow } from '../dlq/show.js';
import { withCosmosFlag } from '../cosmos.js';
import { CliError } from '../errors.js';
import type { CliIo } from '../io.js';
import { collect, wholeNumber } from '../options.js';
import { subscriptionPath } from '../serviceBus.js';
import { addConnectionOptions, resolveCliSettings, type ConnectionFlags } from '../settings.js';
import { ORDER_EVENTS_TOPIC } from 'ledger-convoy/core';
import { table } from '../table.js';

interface QueueFlags extends ConnectionFlags {
  queue: string;
  subscription?: string;
  json?: boolean;
}

/**
 * The entity whose dead letters a command reads: `--subscription <name>` names a subscription of `order-events`
 * (its path), else `--queue`.
 */
function deadLetterEntity(flags: QueueFlags): string {
  if (flags.subscription === undefined) return flags.queue;
  if (flags.queue !== 'orders') throw new CliError('InvalidOption', 'Use --queue or --subscription, not both.');
  return subscriptionPath(ORDER_EVENTS_TOPIC, flags.subscription);
}

/** `convoy dlq list | show | resubmit | purge`. */
export function dlqCommand(io: CliIo): Command {
  const dlq = new Command('dlq')
    .description('Inspect, resubmit and purge dead letters (default queue: orders)')
    .addHelpText(
      'after',
      `\nDead letters of a subscription of ${ORDER_EVENTS_TOPIC} (--subscription <name>) can be listed, shown and purged, never resubmitted: ${NO_SUBSCRIPTION_RESUBMIT[0]}`,
    );
  const withQueue = (command: Command): Command =>
    addConnectionOptions(
      command
        .option('--queue <name>', 'queue whose dead-letter queue to use (orders or ledger)', 'orders')
        .option('--subscription <name>', `instead of a queue: a subscription of ${ORDER_EVENTS_TOPIC} (e.g. all)`),
    );

  dlq.addCommand(
    withQueue(new Command('list'))
      .description("List dead letters, and the orders' rejected entries (rule 11)")
      .option('--order <id>', 'also show the rejected entries of this order (repeatable)', collect, [])
      .option('--json', 'print JSON')
      .action(async (flags: QueueFlags & { order: string[] }) => {
        const listing = await runDlqList({
          settings: resolveCliSettings(flags, process.env, process.cwd(), io.embeddedStack),
          queue: deadLetterEntity(flags),
          orders: flags.order,
        });
        io.out(flags.json ? JSON.stringify(listing, null, 2) : formatListing(listing));
      }),
  );

  dlq.addCommand(
    withQueue(new Command('show'))
      .description('Show one dead letter in full: properties, reason, body')
      .argument('<id>', 'sequence number, message id or entry id')
      .action(async (id: string, flags: QueueFlags) => {
        const details = await runDlqShow({
          settings: resolveCliSettings(flags, process.env, process.cwd(), io.embeddedStack),
          queue: deadLetterEntity(flags),
          id,
        });
        io.out(JSON.stringify(details.length === 1 ? details[0] : details, null, 2));
      }),
  );

  dlq.addCommand(
    withQueue(new Command('resubmit'))
      .description(
        'Send dead letters back with messageId <entryId>.r<n> (rule 10), or a corrected entry for a rejected sequence',
      )
      .argument('[ids...]', 'sequence numbers, message ids or entry ids')
      .option('--reason <reason>', 'only dead letters with this reason')
      .option('--all', 'every dead letter (narrowed by --reason)')
      .option('--edit', 'correct each body in $EDITOR before it goes back')
      .option('--body <file>', 'the corrected body (one dead letter, or with --order)')
      .option('--order <id>', "resubmit the order's rejected entry at --sequence instead of a dead letter")
      .option('--sequence <n>', 'the rejected sequence (with --order)', wholeNumber(1))
      .option(
        '--attempt <n>',
        'with --order: n of <entryId>.r<n> when the order document cannot be read (else n = 1 + the highest resubmitCount seen; this can only raise it)',
        wholeNumber(1),
      )
      .option(
        '--correlation-id <ledgerId>',
        "with --order: the correction's correlationId, its ledger id (else read from Cosmos DB)",
      )
      .option(
        '--cosmos <connection>',
        "Cosmos DB connection string, to read a rejected entry's ledger id (else $CosmosConnection, else local.settings.json)",
      )
      .option(
        '--timeout <seconds>',
        'how long to wait for selected dead letters another receiver holds locked before failing with their sequence numbers',
        wholeNumber(1),
        DLQ_RECEIVE_TIMEOUT_MS / 1000,
      )
      .addHelpText(
        'after',
        '\nExamples:\n  convoy dlq resubmit --reason SchemaValidationFailed --edit\n  convoy dlq resubmit 42 --body fixed.json\n  convoy dlq resubmit --order o-1 --sequence 4 --edit',
      )
      .action(async (ids: string[], flags: QueueFlags & ResubmitFlags) => {
        const resolved = resolveCliSettings(flags, process.env, process.cwd(), io.embeddedStack);
        const settings = { ...resolved, app: withCosmosFlag(resolved.app, flags.cosmos) };
        if (flags.edit && flags.body) throw new CliError('InvalidOption', 'Use --edit or --body, not both.');
        const corrected = flags.body !== undefined ? readJsonBody(flags.body) : undefined;
        if (flags.order !== undefined) {
          if (flags.sequence === undefined)
            throw new CliError('InvalidOption', '--order needs --sequence <n>: the rejected sequence to fill.');
          if (!flags.edit && corrected === undefined)
            throw new CliError(
              'InvalidOption',
              'A rejected entry needs a corrected body.',
              'Pass --edit or --body <file>.',
            );
          const done = await runResubmitRejected({
            settings,
            orderId: flags.order,
            sequence: flags.sequence,
            attempt: flags.attempt,
            correlationId: flags.correlationId,
            correct: (template) => corrected ?? editBody(template, `${flags.order}-${flags.sequence}`),
          });
          io.out(
            `resubmitted ${done.entryId} to session ${done.sessionId} as ${done.messageId}${done.correlationId ? ` (correlationId ${done.correlationId})` : ''}`,
          );
          if (done.correlationId === undefined) {
            io.err(
              'warning: sent without a correlationId (its ledger id): none was given and none could be read; pass --correlation-id or --cosmos next time.',
            );
          }
          return;
        }
        const report = await runDlqResubmit({
          settings,
          queue: deadLetterEntity(flags),
          ids,
          reason: flags.reason,
          all: flags.all,
          correct: corrector(flags, corrected),
          timeoutMs: flags.timeout * 1000,
        });
        for (const r of report.resubmitted)
          io.out(`resubmitted #${r.sequenceNumber} ${r.entryId} (session ${r.sessionId || '-'}) as ${r.messageId}`);
        if (report.resubmitted.length === 0) io.out('nothing to resubmit');
        for (const id of report.notFound) io.err(`not found: ${id}`);
        for (const n of report.gone)
          io.err(`not resubmitted: #${n} left the dead-letter queue meanwhile (resubmitted or purged elsewhere)`);
        if (report.notFound.length > 0 || report.gone.length > 0) io.exitCode = 1;
      }),
  );

  dlq.addCommand(
    withQueue(new Command('purge'))
      .description('Delete every dead letter of the queue (asks for --yes)')
      .option('--yes', 'really delete them')
      .option(
        '--timeout <seconds>',
        'how long to wait for dead letters another receiver holds locked before failing with their sequence numbers',
        wholeNumber(1),
        DLQ_RECEIVE_TIMEOUT_MS / 1000,
      )
      .action(async (flags: QueueFlags & { yes?: boolean; timeout: number }) => {
        const entity = deadLetterEntity(flags);
        const purged = await runDlqPurge({
          settings: resolveCliSettings(flags, process.env, process.cwd(), io.embeddedStack),
          queue: entity,
          yes: flags.yes === true,
          timeoutMs: flags.timeout * 1000,
        });
        io.out(`purged ${purged} dead letter(s) from ${entity}/$DeadLetterQueue`);
      }),
  );
  return dlq;
}

interface ResubmitFlags {
  timeout: number;
  reason?: string;
  all?: boolean;
  edit?: boolean;
  body?: string;
  order?: string;
  sequence?: number;
  attempt?: number;
  correlationId?: string;
  cosmos?: string;
}

function corrector(
  flags: ResubmitFlags,
  corrected: unknown,
): ((body: unknown, row: DeadLetterRow) => unknown) | undefined {
  if (corrected !== undefined) {
    let used = false;
    return () => {
      // One corrected body cannot fix several different entries.
      if (used)
        throw new CliError('InvalidOption', '--body applies to a single dead letter.', 'Select one id, or use --edit.');
      used = true;
      return corrected;
    };
  }
  return flags.edit ? (body, row) => editBody(body, row.entryId || row.sequenceNumber) : undefined;
}

function formatListing(listing: DlqListing): string {
  const lines = [`${listing.queue}/$DeadLetterQueue: ${listing.deadLetters.length} dead letter(s)`];
  if (listing.deadLetters.length > 0) {
    lines.push(
      table(
        ['#', 'reason', 'entryId', 'seq', 'session', 'enqueued', 'messageId', 'description'],
        listing.deadLetters.map((d) => [
          d.sequenceNumber,
          d.reason,
          d.entryId,
          d.sequence,
          d.sessionId,
          d.enqueuedAt,
          d.messageId,
          d.description,
        ]),
      ),
    );
  }
  if (listing.rejected.length > 0) {
    lines.push('', `rejected entries (rule 11): ${listing.rejected.length}`);
    lines.push(
      table(
        ['order', 'seq', 'entryId', 'reason'],
        listing.rejected.map((r) => [r.orderId, r.sequence, r.entryId, r.reason]),
      ),
    );
  }
  if (listing.ordersUnavailable) lines.push('', `rejected entries not shown: ${listing.ordersUnavailable}`);
  return lines.join('\n');
}
