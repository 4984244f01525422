/**
 * Outbox relay: a Cosmos DB trigger on the change feed of `orders` → the core's relay, which delivers each batch's
 * stored events (applied entries' records) to `order-events` and the webhook, per order in sequence order (docs/architecture.md, "The outbox relay").
 *
 * The lease checkpoint advances only after the invocation returns, so a failed one must not return: its error
 * goes to the `retry` policy (exponential, unbounded), which reruns the same batch until it succeeds — the real
 * host checkpoints a batch whose retries ran out, so a bounded policy would skip records.
 */
import type { InvocationContext } from '@azure/functions';
import type { RelayReport } from '../core/index.js';
import { LEASE_CONTAINER, OUTBOX_RELAY_LEASE_PREFIX } from '../adapters/changeFeedLease.js';
import { defineFunction, type AppContext } from './appContext.js';

/** The app setting holding the Cosmos DB connection, as the trigger names it. */
const COSMOS_CONNECTION = 'CosmosConnection';
/**
 * How long a lease's processor waits after the feed had nothing new: the event latency when idle is about half of
 * it, and each idle poll of each lease is one change-feed request (its RU cost: infra/README.md).
 */
const OUTBOX_RELAY_FEED_POLL_DELAY_MS = 500;
/**
 * Documents per invocation: every applied entry changes at most three (its record, the order, its transaction), so
 * one invocation relays up to about 35 events — and a replay (a crash before the checkpoint, a lost lease) repeats at
 * most those. A relay keeping up reads far fewer per batch; only a backlog fills them, and a full batch costs one
 * change-feed read and one checkpoint per ≈ 35 entries.
 */
const OUTBOX_RELAY_MAX_ITEMS = 100;

/** The trigger's options. */
const OUTBOX_RELAY_TRIGGER = {
  connection: COSMOS_CONNECTION,
  databaseName: '%COSMOS_DATABASE%',
  containerName: '%COSMOS_CONTAINER%',
  leaseContainerName: LEASE_CONTAINER,
  leaseContainerPrefix: OUTBOX_RELAY_LEASE_PREFIX,
  createLeaseContainerIfNotExists: false,
  // A new relay reads what was committed before it started (records not yet relayed would otherwise be lost);
  // records relayed before are repeated with their messageIds, which consumers dedupe on.
  startFromBeginning: true,
  feedPollDelay: OUTBOX_RELAY_FEED_POLL_DELAY_MS,
  maxItemsPerInvocation: OUTBOX_RELAY_MAX_ITEMS,
  retry: {
    strategy: 'exponentialBackoff',
    maxRetryCount: -1,
    minimumInterval: { seconds: 1 },
    maximumInterval: { minutes: 1 },
  },
} as const;

/** Relays one change batch; rejects on an infrastructure failure, for the retry policy to run it again. @internal */
export async function outboxRelay(
  app: AppContext,
  documents: unknown[],
  context: InvocationContext,
): Promise<RelayReport> {
  const report = await app.outbox.relay.relay(documents);
  if (report.held.length > 0 || report.appended > 0)
    app.telemetry.log('warn', 'outbox relay batch', { invocationId: context.invocationId, ...report });
  return report;
}

/** The function: the change feed of `orders`, leased in `leases`, retried until it succeeds. */
export const outboxRelayFunction = defineFunction('cosmosDB', 'outboxRelay', outboxRelay, OUTBOX_RELAY_TRIGGER);
