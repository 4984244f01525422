import { ServiceBusAdministrationClient } from '@azure/service-bus';
import { z } from 'zod';
import { resolveServiceBusConnection } from 'ledger-convoy/adapters/azureSettings';
import type { OrderView } from 'ledger-convoy/core';
import { CliError, isCliError } from './errors.js';
import { FunctionApi } from './httpApi.js';
import { asCliError } from './serviceBus.js';
import { QUEUE_NAMES } from 'ledger-convoy/core';
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

/** What `sessions` shows. */
export interface SessionsReport {
  /** `emulator`: the admin view (per session); `azure`: the administration client (per queue only). */
  source: 'emulator' | 'azure';
  queues: QueueRow[];
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
  const queues =
    emulator || options.admin ? await emulatorQueues(adminUrl(options)) : await azureQueues(options.settings);
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
  return { source: emulator || options.admin ? 'emulator' : 'azure', queues, orders, ordersUnavailable };
}

/** `--admin`, else $CONVOY_ADMIN, else port 5300 on the emulator's host. */
function adminUrl(options: SessionsOptions): string {
  if (options.admin) return options.admin;
  if (options.settings.app.CONVOY_ADMIN) return options.settings.app.CONVOY_ADMIN;
  const endpoint =
    /Endpoint=sb:\/\/([^:;/]+)/i.exec(options.settings.app.ServiceBusConnection ?? '')?.[1] ?? '127.0.0.1';
  return `http://${endpoint}:5300/stats`;
}

async function emulatorQueues(url: string): Promise<QueueRow[]> {
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
  return parsed.data.entities
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
}

async function azureQueues(settings: CliSettings): Promise<QueueRow[]> {
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
    return await Promise.all(
      QUEUE_NAMES.map(async (name) => {
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
  } catch (error) {
    throw asCliError(error);
  }
}
