import { userInfo } from 'node:os';
import { Command } from 'commander';
import type { Container } from '@azure/cosmos';
import pino from 'pino';
import type { HoldDiscardReport, HoldReleaseReport, OutboxTarget } from 'ledger-convoy/core';
import { withCosmosFlag, withOrdersContainer } from '../cosmos.js';
import { CliError } from '../errors.js';
import type { CliIo } from '../io.js';
import { withServiceBus } from '../serviceBus.js';
import { addConnectionOptions, resolveCliSettings, type CliSettings, type ConnectionFlags } from '../settings.js';
import { table } from '../table.js';

/** One hold as `convoy outbox list` shows it. */
interface HoldListing {
  orderId: string;
  targets: OutboxTarget[];
  /** Stored events the target furthest behind still waits for. */
  records: number;
  heldThrough: number;
  since: string;
  nextAttempt: string;
  attempts: number;
  /** When a release's claim runs out, while one runs. */
  releasingUntil: string | undefined;
  lastError: string;
}

/** What `convoy outbox list` shows. */
export interface OutboxListing {
  /** The relay's lag per lease (age of the oldest stored event past its checkpoint). */
  leases: { leaseToken: string; owner: string | null; lagSeconds: number }[];
  holds: HoldListing[];
}

/** Lag per lease and every hold (or one order's), each with its next attempt. */
export async function listOutbox(container: Container, filter: { orderId?: string } = {}): Promise<OutboxListing> {
  const [{ CosmosOutboxHoldStore }, { relayLag }, { LEASE_CONTAINER, OUTBOX_RELAY_LEASE_PREFIX }, { heldRecords }] =
    await Promise.all([
      import('ledger-convoy/adapters/outboxHoldCosmosStore'),
      import('ledger-convoy/adapters/outboxLag'),
      import('ledger-convoy/adapters/changeFeedLease'),
      import('ledger-convoy/core'),
    ]);
  const store = new CosmosOutboxHoldStore(container);
  const leases = container.database.container(LEASE_CONTAINER);
  const [stored, lags] = await Promise.all([
    store.list(filter),
    relayLag(container, leases, OUTBOX_RELAY_LEASE_PREFIX, Date.now()).catch((error: unknown) => {
      if ((error as { code?: unknown }).code === 404) return []; // no lease container: the relay never ran here
      throw error;
    }),
  ]);
  const now = Date.now();
  const holds = stored.map(({ doc: hold }) => {
    return {
      orderId: hold.orderId,
      targets: hold.targets,
      records: heldRecords(hold),
      heldThrough: hold.heldThrough,
      since: hold.since,
      nextAttempt: hold.nextAttempt,
      attempts: hold.attempts,
      releasingUntil:
        hold.releasingUntil !== undefined && Date.parse(hold.releasingUntil) > now ? hold.releasingUntil : undefined,
      lastError: hold.lastError,
    };
  });
  return {
    leases: lags.map((l) => ({ leaseToken: l.leaseToken, owner: l.owner, lagSeconds: Math.round(l.lagMs / 100) / 10 })),
    holds,
  };
}

/**
 * Releases the hold of `orderId` now, whatever its next attempt: it is claimed, its records go in order to the
 * target(s) each still owes (`order-events` with the app's Service Bus connection, the webhook of
 * `OUTBOX_WEBHOOK_URL`), then it is deleted under its ETag (again, with what the relay added meanwhile).
 * Throws `CliError` `NotFound` (no hold), `Busy` (a release runs) or `ServiceBus` (a target failed: the hold stays
 * with its next attempt).
 */
export async function retryOutbox(
  settings: CliSettings,
  container: Container,
  orderId: string,
): Promise<HoldReleaseReport> {
  const [
    { CosmosOutboxHoldStore },
    { ServiceBusOrderEventSender },
    { webhookOf },
    { releaseHold, resolveOutboxConfig },
  ] = await Promise.all([
    import('ledger-convoy/adapters/outboxHoldCosmosStore'),
    import('ledger-convoy/adapters/outboxServiceBusSender'),
    import('ledger-convoy/adapters/outboxWebhook'),
    import('ledger-convoy/core'),
  ]);
  const holds = new CosmosOutboxHoldStore(container);
  if ((await holds.read(orderId)) === undefined) throw noHold(orderId);
  const config = resolveOutboxConfig(settings.app);
  const webhook = webhookOf(config);
  const report = await withServiceBus(settings, async (client) => {
    const sender = client.createSender('order-events');
    try {
      return await releaseHold(
        {
          holds,
          sender: new ServiceBusOrderEventSender(sender),
          webhook,
          backoff: config.holdRetry,
          timeoutMs: config.webhookTimeoutMs,
        },
        orderId,
      );
    } finally {
      await sender.close();
    }
  });
  if (report.outcome === 'no-hold') throw noHold(orderId);
  if (report.outcome === 'busy')
    throw new CliError(
      'Busy',
      `The hold of ${orderId} is being released (${report.detail}).`,
      'Look again with `convoy outbox list`.',
    );
  if (report.outcome === 'failed')
    throw new CliError(
      'ServiceBus',
      `The hold of ${orderId} stays: ${report.detail}; next attempt ${report.nextAttempt}.`,
    );
  return report;
}

/**
 * Discards the hold of `orderId`: the events behind it are dropped, an audit record with `reason` is written in the
 * order's partition and `OutboxDiscarded` is raised. Throws `CliError` `NotFound` or `Busy` like {@link retryOutbox}.
 */
export async function discardOutbox(
  container: Container,
  orderId: string,
  reason: string,
  by = operatorName(),
): Promise<HoldDiscardReport> {
  if (reason.trim() === '')
    throw new CliError(
      'InvalidOption',
      'A discard needs a reason.',
      'Pass --reason "<why these records need not be delivered>".',
    );
  const [{ CosmosOutboxHoldStore }, { createTelemetry }, { discardHold }] = await Promise.all([
    import('ledger-convoy/adapters/outboxHoldCosmosStore'),
    import('ledger-convoy/adapters/telemetry'),
    import('ledger-convoy/core'),
  ]);
  // The alert goes to stderr as a log line (and to OpenTelemetry when the CLI has an exporter).
  const telemetry = createTelemetry({ level: 'warn', destination: pino.destination(2) });
  const report = await discardHold({ holds: new CosmosOutboxHoldStore(container), telemetry }, orderId, { reason, by });
  if (report.outcome === 'no-hold') throw noHold(orderId);
  if (report.outcome === 'busy')
    throw new CliError(
      'Busy',
      `The hold of ${orderId} is being released (${report.detail}).`,
      'Look again with `convoy outbox list`.',
    );
  return report;
}

function noHold(orderId: string): CliError {
  return new CliError('NotFound', `Order ${orderId} has no outbox hold.`, 'List the holds with `convoy outbox list`.');
}

function operatorName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

interface OutboxFlags extends ConnectionFlags {
  cosmos?: string;
  json?: boolean;
}

/** `convoy outbox list | retry | discard`. */
export function outboxCommand(io: CliIo): Command {
  const outbox = new Command('outbox').description("Show the outbox relay's lag and holds; release or discard a hold");
  const withCosmos = (command: Command): Command =>
    addConnectionOptions(
      command.option(
        '--cosmos <connection>',
        'Cosmos DB connection string (else $CosmosConnection, else local.settings.json)',
      ),
    );

  outbox.addCommand(
    withCosmos(new Command('list'))
      .description("The relay's lag per lease and the orders on hold, with their held records and next attempt")
      .option('--order <id>', 'only this order')
      .option('--json', 'print JSON')
      .action((flags: OutboxFlags & { order?: string }) =>
        withContainer(flags, async (_settings, container) => {
          const listing = await listOutbox(container, { orderId: flags.order });
          io.out(flags.json ? JSON.stringify(listing, null, 2) : formatListing(listing));
        }),
      ),
  );

  outbox.addCommand(
    withCosmos(new Command('retry'))
      .description(
        "Release an order's hold now: deliver its held records in order to the held target(s), then delete the hold",
      )
      .argument('<orderId>', 'the order whose hold to release')
      .option('--json', 'print JSON')
      .action((orderId: string, flags: OutboxFlags) =>
        withContainer(flags, async (settings, container) => {
          const report = await retryOutbox(settings, container, orderId);
          if (flags.json) io.out(JSON.stringify(report, null, 2));
          else
            io.out(
              `released the hold of ${orderId}: ${report.delivered['order-events']} to order-events, ${report.delivered.webhook} to the webhook (${report.rounds} round(s))`,
            );
        }),
      ),
  );

  outbox.addCommand(
    withCosmos(new Command('discard'))
      .description(
        "Drop an order's held records without delivering them: an audit record and an OutboxDiscarded alert say so",
      )
      .argument('<orderId>', 'the order whose hold to discard')
      .requiredOption('--reason <text>', 'why the held records need not be delivered (kept in the audit record)')
      .option('--json', 'print JSON')
      .action((orderId: string, flags: OutboxFlags & { reason: string }) =>
        withContainer(flags, async (_settings, container) => {
          const report = await discardOutbox(container, orderId, flags.reason);
          if (flags.json) io.out(JSON.stringify(report, null, 2));
          else
            io.out(
              `discarded the hold of ${orderId}: ${report.records} held record(s) dropped (audit ${report.audits.join(', ')})`,
            );
        }),
      ),
  );
  return outbox;
}

async function withContainer(
  flags: OutboxFlags,
  work: (settings: CliSettings, container: Container) => Promise<void>,
): Promise<void> {
  const settings = resolveCliSettings(flags);
  await withOrdersContainer(withCosmosFlag(settings.app, flags.cosmos), (container) =>
    work({ ...settings, app: withCosmosFlag(settings.app, flags.cosmos) }, container),
  );
}

function formatListing(listing: OutboxListing): string {
  const lag =
    listing.leases.length === 0
      ? 'no relay leases'
      : table(
          ['lease', 'owner', 'lag (s)'],
          listing.leases.map((l) => [l.leaseToken, l.owner ?? '-', l.lagSeconds]),
        );
  const holds =
    listing.holds.length === 0
      ? 'no holds'
      : table(
          ['order', 'targets', 'held records', 'held through', 'since', 'next attempt', 'attempts', 'last error'],
          listing.holds.map((h) => [
            h.orderId,
            h.targets.join(', '),
            h.records,
            h.heldThrough,
            h.since,
            h.releasingUntil ? `releasing (until ${h.releasingUntil})` : h.nextAttempt,
            h.attempts,
            h.lastError,
          ]),
        );
  return `${lag}\n\n${holds}`;
}
