/**
 * The outbox relay of the app, built with the app context from its settings (the `order-events` sender, the
 * optional webhook, the holds in the orders container), and what the hold timer releases holds with.
 */
import type { Container } from '@azure/cosmos';
import type { ServiceBusSender } from '@azure/service-bus';
import { CosmosOutboxHoldStore } from '../adapters/outboxHoldCosmosStore.js';
import { ServiceBusOrderEventSender } from '../adapters/outboxServiceBusSender.js';
import { webhookOf } from '../adapters/outboxWebhook.js';
import { OutboxRelay, type HoldRetryDeps, type OutboxConfig } from '../core/index.js';
import type { OutboxObserver } from '../core/outbox/outboxPorts.js';
import type { Clock } from '../core/ports/clock.js';
import type { Telemetry } from '../core/ports/telemetry.js';

/** The relay and what it was built from. */
export interface OutboxRuntime {
  readonly holds: CosmosOutboxHoldStore;
  readonly relay: OutboxRelay;
  /** What the `outboxHoldRetry` timer releases holds with. */
  readonly holdRetry: HoldRetryDeps;
}

/** What {@link createOutboxRuntime} builds the relay from. */
interface OutboxRuntimeParts {
  config: Readonly<OutboxConfig>;
  /** The orders container: its change feed is relayed, and the holds live in it. */
  container: Container;
  /** The `order-events` sender. */
  sender: ServiceBusSender;
  telemetry: Telemetry;
  metrics: OutboxObserver;
  clock: Clock;
}

/** Builds the relay from its resolved settings. */
export function createOutboxRuntime(parts: OutboxRuntimeParts): OutboxRuntime {
  const { config, telemetry, clock } = parts;
  const holds = new CosmosOutboxHoldStore(parts.container);
  const sender = new ServiceBusOrderEventSender(parts.sender);
  const webhook = webhookOf(config);
  const relay = new OutboxRelay({
    sender,
    webhook,
    holds,
    telemetry,
    options: config,
    observer: parts.metrics,
    clock,
  });
  const holdRetry: HoldRetryDeps = {
    holds,
    sender,
    webhook,
    backoff: config.holdRetry,
    clock,
    timeoutMs: config.webhookTimeoutMs,
    telemetry,
  };
  return { holds, relay, holdRetry };
}
