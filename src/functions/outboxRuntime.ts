/**
 * The outbox relay of the app: built once per app context from its settings (the `order-events` sender, the
 * optional webhook, the holds in the orders container), with what the hold timer shares with it.
 */
import { sharedMetrics } from '../adapters/metrics.js';
import { CosmosOutboxHoldStore } from '../adapters/outboxHoldCosmosStore.js';
import { ServiceBusOrderEventSender } from '../adapters/outboxServiceBusSender.js';
import { WebhookOrderEventPoster } from '../adapters/outboxWebhook.js';
import { OutboxRelay, WebhookWake, resolveOutboxConfig, type HoldRetryDeps, type OutboxConfig } from '../core/index.js';
import { QueueName } from '../core/queueNames.js';
import type { AppContext } from './appContext.js';

/** The relay of one app context and what it was built from. */
export interface OutboxRuntime {
  readonly config: Readonly<OutboxConfig>;
  readonly holds: CosmosOutboxHoldStore;
  readonly sender: ServiceBusOrderEventSender;
  readonly webhook: WebhookOrderEventPoster | undefined;
  readonly relay: OutboxRelay;
  /** What the `outboxHoldRetry` timer releases holds with (sharing the relay's webhook wake). */
  readonly holdRetry: HoldRetryDeps;
}

const runtimes = new WeakMap<AppContext, OutboxRuntime>();

/** The outbox runtime of `app`, built on first use (a rebuilt context gets a new one). Throws `ConfigError`. */
export function outboxRuntime(app: AppContext): OutboxRuntime {
  let runtime = runtimes.get(app);
  if (runtime === undefined) {
    const config = resolveOutboxConfig(app.settings);
    const holds = new CosmosOutboxHoldStore(app.container());
    const sender = new ServiceBusOrderEventSender(app.sender(QueueName.OrderEvents));
    const webhook = config.webhookUrl === undefined ? undefined : new WebhookOrderEventPoster({ url: config.webhookUrl, timeoutMs: config.webhookTimeoutMs, ...(config.webhookSecret !== undefined && { secret: config.webhookSecret }) });
    // One wake per instance: a webhook delivery of the relay or of the timer after a failure wakes the webhook holds.
    const wake = new WebhookWake(config.holdRetry, app.clock);
    const relay = new OutboxRelay({ sender, webhook, holds, telemetry: app.telemetry, options: config, observer: sharedMetrics(), clock: app.clock, wake });
    const holdRetry: HoldRetryDeps = {
      holds,
      sender,
      webhook,
      backoff: config.holdRetry,
      clock: app.clock,
      timeoutMs: config.webhookTimeoutMs,
      telemetry: app.telemetry,
      wake,
      repeatAlertAfterMs: (app.config.outboxTtlSeconds * 1000) / 2,
    };
    runtime = { config, holds, sender, webhook, relay, holdRetry };
    runtimes.set(app, runtime);
  }
  return runtime;
}
