/**
 * The outbox dispatcher of the app: built once per app context from its settings (Cosmos container, the
 * `order-events` sender, the optional webhook), and the order processor's fast path into it.
 */
import { sharedMetrics } from '../adapters/metrics.js';
import { CosmosOutboxStore } from '../adapters/outboxCosmosStore.js';
import { ServiceBusOrderEventTarget } from '../adapters/outboxServiceBusTarget.js';
import { WebhookOrderEventTarget } from '../adapters/outboxWebhookTarget.js';
import { OutboxDispatcher, errorCode, resolveOutboxConfig, type OrderEventTarget, type OutboxConfig, type ProcessResult } from '../core/index.js';
import { QueueName, type AppContext } from './appContext.js';

/** The dispatcher of one app context and what it was built from. */
export interface OutboxRuntime {
  readonly config: Readonly<OutboxConfig>;
  readonly store: CosmosOutboxStore;
  readonly dispatcher: OutboxDispatcher;
}

const runtimes = new WeakMap<AppContext, OutboxRuntime>();

/** The outbox runtime of `app`, built on first use (a rebuilt context gets a new one). Throws `ConfigError`. */
export function outboxRuntime(app: AppContext): OutboxRuntime {
  let runtime = runtimes.get(app);
  if (runtime === undefined) {
    const config = resolveOutboxConfig(app.settings, app.config);
    const store = new CosmosOutboxStore(app.container());
    const targets: OrderEventTarget[] = [new ServiceBusOrderEventTarget(app.sender(QueueName.OrderEvents))];
    if (config.webhookUrl !== undefined) targets.push(new WebhookOrderEventTarget({ url: config.webhookUrl, timeoutMs: config.webhookTimeoutMs }));
    const dispatcher = new OutboxDispatcher({ store, targets, telemetry: app.telemetry, options: config, observer: sharedMetrics() });
    runtime = { config, store, dispatcher };
    runtimes.set(app, runtime);
  }
  return runtime;
}

/**
 * The order processor's follow-up, called once the message is settled: records the processing metrics and starts
 * dispatching the outbox records its commits created, without waiting for it (the timer's sweep catches whatever
 * this misses). The records come with their batches' ETags, so the dispatcher claims them with no read when it
 * knows they are next in their order; an apply whose record is missing (its commit was in doubt) has the order's
 * open records read instead. The records carry their entries' trace context themselves. Never throws and never
 * delays the caller; failures are logged.
 */
export function afterOrderProcessed(app: AppContext, result: ProcessResult): void {
  try {
    sharedMetrics().processed(result);
    const { orderId } = result;
    const created = result.outbox ?? [];
    const applied = (result.outcome === 'applied' ? 1 : 0) + result.drained;
    if (orderId === undefined || (created.length === 0 && applied === 0)) return;
    const { dispatcher } = outboxRuntime(app);
    const log = (error: unknown) => logFailure(app, orderId, error);
    if (created.length > 0) dispatcher.dispatchOrder(orderId, created).catch(log);
    if (created.length < applied) dispatcher.dispatchOrder(orderId).catch(log);
  } catch (error) {
    logFailure(app, result.orderId, error);
  }
}

function logFailure(app: AppContext, orderId: string | undefined, error: unknown): void {
  app.telemetry.log('warn', 'outbox fast path failed', { orderId, code: errorCode(error), description: error instanceof Error ? error.message : String(error) });
}
