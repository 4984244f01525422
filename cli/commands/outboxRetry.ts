import { Command } from 'commander';
import type { Container } from '@azure/cosmos';
import type { OutboxHold } from '../../src/core/documents/outboxHold.js';
import type { HoldReleaseReport } from '../../src/core/outbox/holdRelease.js';
import { withCosmosFlag, withOrdersContainer } from '../cosmos.js';
import { CliError } from '../errors.js';
import type { CliIo } from '../io.js';
import { withServiceBus } from '../serviceBus.js';
import { addConnectionOptions, resolveCliSettings, type CliSettings, type ConnectionFlags } from '../settings.js';
import { table } from '../table.js';

/** What `convoy outbox list` shows. */
export interface OutboxListing {
  /** The relay's lag per lease (age of the oldest outbox record past its checkpoint). */
  leases: { leaseToken: string; owner: string | null; lagSeconds: number }[];
  holds: OutboxHold[];
}

/** Lag per lease and every hold (or one order's). */
export async function listOutbox(container: Container, filter: { orderId?: string } = {}): Promise<OutboxListing> {
  const [{ CosmosOutboxHoldStore }, { relayLag }, { LEASE_CONTAINER, OUTBOX_RELAY_LEASE_PREFIX }] = await Promise.all([
    import('../../src/adapters/outboxHoldCosmosStore.js'),
    import('../../src/adapters/outboxLag.js'),
    import('../../src/adapters/changeFeedLease.js'),
  ]);
  const leases = container.database.container(LEASE_CONTAINER);
  const [holds, lags] = await Promise.all([
    new CosmosOutboxHoldStore(container).list(filter),
    relayLag(container, leases, OUTBOX_RELAY_LEASE_PREFIX, Date.now()).catch((error: unknown) => {
      if ((error as { code?: unknown }).code === 404) return []; // no lease container: the relay never ran here
      throw error;
    }),
  ]);
  return { leases: lags.map((l) => ({ leaseToken: l.leaseToken, owner: l.owner, lagSeconds: Math.round(l.lagMs / 100) / 10 })), holds };
}

/**
 * Releases the hold of `orderId`: its records go, in order, to the target(s) each still owes (`order-events` with
 * the app's Service Bus connection, the webhook of `OUTBOX_WEBHOOK_URL`), then the hold is deleted under its ETag
 * (again, with what the relay appended meanwhile, when the ETag changed). Throws `CliError` `NotFound` when the
 * order has no hold.
 */
export async function retryOutbox(settings: CliSettings, container: Container, orderId: string): Promise<HoldReleaseReport> {
  const [{ CosmosOutboxHoldStore }, { ServiceBusOrderEventSender }, { WebhookOrderEventPoster }, { releaseHold, resolveOutboxConfig }] = await Promise.all([
    import('../../src/adapters/outboxHoldCosmosStore.js'),
    import('../../src/adapters/outboxServiceBusSender.js'),
    import('../../src/adapters/outboxWebhook.js'),
    import('../../src/core/index.js'),
  ]);
  const holds = new CosmosOutboxHoldStore(container);
  if ((await holds.read(orderId)) === undefined) {
    throw new CliError('NotFound', `Order ${orderId} has no outbox hold.`, 'List the holds with `convoy outbox list`.');
  }
  const config = resolveOutboxConfig(settings.app);
  const webhook = config.webhookUrl === undefined ? undefined : new WebhookOrderEventPoster({ url: config.webhookUrl, timeoutMs: config.webhookTimeoutMs });
  return withServiceBus(settings, async (client) => {
    const sender = client.createSender('order-events');
    try {
      return await releaseHold({ holds, sender: new ServiceBusOrderEventSender(sender), webhook }, orderId);
    } finally {
      await sender.close();
    }
  });
}

interface OutboxFlags extends ConnectionFlags {
  cosmos?: string;
  json?: boolean;
}

/** `convoy outbox list | retry`. */
export function outboxCommand(io: CliIo): Command {
  const outbox = new Command('outbox').description("Show the outbox relay's lag and holds, and release a hold");
  const withCosmos = (command: Command): Command =>
    addConnectionOptions(command.option('--cosmos <connection>', 'Cosmos DB connection string (else $CosmosConnection, else local.settings.json)'));

  outbox.addCommand(
    withCosmos(new Command('list'))
      .description("The relay's lag per lease and the orders on hold, with their held records")
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
      .description("Release an order's hold: deliver its held records in order to the failed target(s) only, then delete the hold")
      .argument('<orderId>', 'the order whose hold to release')
      .option('--json', 'print JSON')
      .action((orderId: string, flags: OutboxFlags) =>
        withContainer(flags, async (settings, container) => {
          const report = await retryOutbox(settings, container, orderId);
          if (flags.json) io.out(JSON.stringify(report, null, 2));
          else io.out(`released the hold of ${orderId}: ${report.delivered['order-events']} to order-events, ${report.delivered.webhook} to the webhook (${report.rounds} round(s))`);
        }),
      ),
  );
  return outbox;
}

async function withContainer(flags: OutboxFlags, work: (settings: CliSettings, container: Container) => Promise<void>): Promise<void> {
  const settings = resolveCliSettings(flags);
  await withOrdersContainer(withCosmosFlag(settings.app, flags.cosmos), (container) => work({ ...settings, app: withCosmosFlag(settings.app, flags.cosmos) }, container));
}

function formatListing(listing: OutboxListing): string {
  const lag = listing.leases.length === 0 ? 'no relay leases' : table(['lease', 'owner', 'lag (s)'], listing.leases.map((l) => [l.leaseToken, l.owner ?? '-', l.lagSeconds]));
  const holds =
    listing.holds.length === 0
      ? 'no holds'
      : table(
          ['order', 'held records', 'sequences', 'failed targets', 'held at', 'last error'],
          listing.holds.map((h) => [h.orderId, h.records.length, `${h.records[0]?.sequence ?? '-'}..${h.records.at(-1)?.sequence ?? '-'}`, h.failedTargets.join(', '), h.heldAt, h.lastError]),
        );
  return `${lag}\n\n${holds}`;
}
