import { ServiceBusAdministrationClient } from '@azure/service-bus';
import { z } from 'zod';
import { resolveServiceBusConnection } from 'ledger-convoy/adapters/azureSettings';
import type { OrderView } from 'ledger-convoy/core';
import { CliError, isCliError } from './errors.js';
import { FunctionApi } from './httpApi.js';
import { asCliError, subscriptionOf, subscriptionPath } from './serviceBus.js';
import { ORDER_EVENTS_TOPIC, QUEUE_NAMES } from 'ledger-convoy/core';
import { requireServiceBus, type CliSettings } from './settings.js';
import { errorMessage } from 'ledger-convoy/core';

/** Options of {@link runSessions}. */
export interface SessionsOptions {
  settings: CliSettings;
  /** The emulator's stats URL. @default `http://<emulator host>:5300/stats` (or $CONVOY_ADMIN) */
  admin?: string;
  /** Orders whose parked and rejected entries to show, besides the active sessions'. @default [] */
  orders?: string[];
  /** Most orders to read from the active sessions. @default 50 */
  maxOrders?: number;
}

/** One session of a session queue. */
interface SessionRow {
  id: string;
  depth: number;
  holder: string | undefined;
  lockedUntil: string | undefined;
}

/** Counts of one queue; `sessions` only where the emulator's admin view lists them. */
interface QueueRow {
  name: string;
  requiresSession: boolean | undefined;
  active: number;
  deadLettered: number;
  /** Messages scheduled for later delivery; undefined where the source does not say. */
  scheduled: number | undefined;
  sessions: SessionRow[] | undefined;
}

/** Counts of one subscription of a topic: its backlog, its sessions holding messages, its dead letters. */
interface SubscriptionRow {
  name: string;
  /** Its entity path (`order-events/Subscriptions/all`): what `convoy dlq --subscription` and the console read. */
  path: string;
  requiresSession: boolean | undefined;
  active: number;
  deadLettered: number;
  /**
   * Sessions (orders) with messages waiting — a count, not a list: a subscription nobody drains holds one per order;
   * undefined where the source does not say (Azure).
   */
  sessions: number | undefined;
}

/** A topic (`order-events`) and its subscriptions, one per downstream. */
interface TopicRow {
  name: string;
  /** Its subscriptions' active messages together: what fills the topic (and what its backlog alert watches). */
  active: number;
  /** Bytes the topic holds, where the source says (Azure). */
  sizeInBytes: number | undefined;
  subscriptions: SubscriptionRow[];
}

/** What `sessions` shows. */
export interface SessionsReport {
  /** `emulator`: the admin view (per session); `azure`: the administration client (per queue only). */
  source: 'emulator' | 'azure';
  queues: QueueRow[];
  topics: TopicRow[];
  orders: Pick<OrderView, 'orderId' | 'status' | 'lastSequence' | 'parked' | 'rejected'>[];
  ordersUnavailable: string | undefined;
}

/** The emulator's `GET /stats` (packages/servicebus-emulator/src/admin): extra fields are ignored. */
const statsSchema = z.object({
  entities: z.array(
    z.object({
      name: z.string(),
      kind: z.string(),
      active: z.number(),
      deadLettered: z.number(),
      scheduled: z.number().optional(),
      sessions: z
        .array(
          z.object({
            id: z.string(),
            depth: z.number(),
            holder: z.string().optional(),
            lockedUntil: z.number().optional(),
          }),
        )
        .optional(),
    }),
  ),
});

/**
 * Session backlogs: on the emulator, each session queue's active sessions with depth and lock holder; against
 * Azure, which has no per-session API, queue-level counts. Then the parked and rejected entries of the orders.
 */
export async function runSessions(options: SessionsOptions): Promise<SessionsReport> {
  requireServiceBus(options.settings);
  const connection = resolveServiceBusConnection(options.settings.app);
  const emulator = connection.kind === 'connectionString' && connection.emulator;
  const { queues, topics } =
    emulator || options.admin ? await emulatorEntities(adminUrl(options)) : await azureEntities(options.settings);
  const sessionOrders = queues
    .filter((q) => q.name === 'orders')
    .flatMap((q) => q.sessions ?? [])
    .map((s) => s.id)
    .slice(0, options.maxOrders ?? 50);
  const orderIds = [...new Set([...(options.orders ?? []), ...sessionOrders])];
  const orders: SessionsReport['orders'] = [];
  let ordersUnavailable: string | undefined;
  const api = new FunctionApi(options.settings);
  try {
    for (const orderId of orderIds) {
      const view = await api.getOrder(orderId);
      if (view)
        orders.push({
          orderId,
          status: view.status,
          lastSequence: view.lastSequence,
          parked: view.parked,
          rejected: view.rejected,
        });
    }
  } catch (error) {
    if (!isCliError(error)) throw error;
    ordersUnavailable = error.message;
  }
  return { source: emulator || options.admin ? 'emulator' : 'azure', queues, topics, orders, ordersUnavailable };
}

/** `--admin`, else $CONVOY_ADMIN, else port 5300 on the emulator's host. */
function adminUrl(options: SessionsOptions): string {
  if (options.admin) return options.admin;
  if (options.settings.app.CONVOY_ADMIN) return options.settings.app.CONVOY_ADMIN;
  const endpoint =
    /Endpoint=sb:\/\/([^:;/]+)/i.exec(options.settings.app.ServiceBusConnection ?? '')?.[1] ?? '127.0.0.1';
  return `http://${endpoint}:5300/stats`;
}

async function emulatorEntities(url: string): Promise<Pick<SessionsReport, 'queues' | 'topics'>> {
  let json: unknown;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    json = await response.json();
  } catch (error) {
    throw new CliError(
      'ServiceBus',
      `Cannot read the emulator's admin view at ${url} (${errorMessage(error)}).`,
      'Start the emulator with its admin port (npm start does), or pass --admin <url>.',
      { cause: error },
    );
  }
  const parsed = statsSchema.safeParse(json);
  if (!parsed.success)
    throw new CliError(
      'ServiceBus',
      `${url} did not answer with the emulator's stats.`,
      'Is --admin pointing at the Service Bus emulator?',
    );
  const queues = parsed.data.entities
    .filter((e) => e.kind === 'queue')
    .map((e) => ({
      name: e.name,
      requiresSession: e.sessions !== undefined,
      active: e.active,
      deadLettered: e.deadLettered,
      scheduled: e.scheduled,
      sessions: e.sessions
        ?.filter((s) => s.depth > 0 || s.holder !== undefined)
        .map((s) => ({
          id: s.id,
          depth: s.depth,
          holder: s.holder,
          lockedUntil: s.lockedUntil === undefined ? undefined : new Date(s.lockedUntil).toISOString(),
        })),
    }));
  // The admin view lists subscriptions (by path), not topics: a topic is what its subscriptions' paths name.
  const topics = new Map<string, TopicRow>();
  for (const e of parsed.data.entities) {
    const of = e.kind === 'subscription' ? subscriptionOf(e.name) : undefined;
    if (!of) continue;
    const topic = topics.get(of.topic) ?? { name: of.topic, active: 0, sizeInBytes: undefined, subscriptions: [] };
    topics.set(of.topic, topic);
    topic.active += e.active;
    topic.subscriptions.push({
      name: of.subscription,
      path: e.name,
      requiresSession: e.sessions !== undefined,
      active: e.active,
      deadLettered: e.deadLettered,
      sessions: e.sessions?.filter((s) => s.depth > 0).length,
    });
  }
  return { queues, topics: [...topics.values()] };
}

async function azureEntities(settings: CliSettings): Promise<Pick<SessionsReport, 'queues' | 'topics'>> {
  const connection = resolveServiceBusConnection(settings.app);
  // `@azure/identity` is loaded only when an identity is used: it is most of a second of start-up.
  const admin =
    connection.kind === 'connectionString'
      ? new ServiceBusAdministrationClient(connection.connectionString)
      : new ServiceBusAdministrationClient(
          connection.fullyQualifiedNamespace,
          (await import('ledger-convoy/adapters/azureClients')).createCredential(connection.credential),
        );
  try {
    const queues = Promise.all(
      QUEUE_NAMES.map(async (name): Promise<QueueRow> => {
        const [runtime, properties] = await Promise.all([admin.getQueueRuntimeProperties(name), admin.getQueue(name)]);
        return {
          name,
          requiresSession: properties.requiresSession,
          active: runtime.activeMessageCount,
          deadLettered: runtime.deadLetterMessageCount,
          scheduled: runtime.scheduledMessageCount,
          sessions: undefined,
        };
      }),
    );
    const topic = async (name: string): Promise<TopicRow> => {
      const runtime = await admin.getTopicRuntimeProperties(name);
      const subscriptions: SubscriptionRow[] = [];
      for await (const s of admin.listSubscriptionsRuntimeProperties(name)) {
        const properties = await admin.getSubscription(name, s.subscriptionName);
        subscriptions.push({
          name: s.subscriptionName,
          path: subscriptionPath(name, s.subscriptionName),
          requiresSession: properties.requiresSession,
          active: s.activeMessageCount,
          deadLettered: s.deadLetterMessageCount,
          sessions: undefined,
        });
      }
      const active = subscriptions.reduce((sum, s) => sum + s.active, 0);
      return { name, active, sizeInBytes: runtime.sizeInBytes, subscriptions };
    };
    const [queueRows, eventTopic] = await Promise.all([queues, topic(ORDER_EVENTS_TOPIC)]);
    return { queues: queueRows, topics: [eventTopic] };
  } catch (error) {
    throw asCliError(error);
  }
}
