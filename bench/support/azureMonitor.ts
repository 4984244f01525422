/**
 * Azure Monitor's own figures for a step of `bench:azure`, through `az monitor metrics list`: the Cosmos DB
 * account's `TotalRequestUnits` and the Service Bus namespace's `IncomingMessages` / `OutgoingMessages`, summed over
 * the step's whole minutes. Platform metrics reach Azure Monitor a few minutes late, so the bench reads them once
 * after the last step and a wait.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { AzureTarget } from './azureEnv.js';

/** Runs `az <args…>` and resolves with its stdout. */
export type Az = (args: string[]) => Promise<string>;

/** A step's time span; metrics are read in whole minutes from `start` (a minute's start) to `end` rounded up. */
interface MetricWindow {
  start: number;
  end: number;
}

/** What Azure Monitor counted in a window; `undefined` where it reported nothing. */
export interface WindowMetrics {
  requestUnits: number | undefined;
  serviceBusIncoming: number | undefined;
  serviceBusOutgoing: number | undefined;
}

/** Reads Azure Monitor's figures for the deployment's Cosmos DB account and Service Bus namespace. */
export interface AzureMetrics {
  /** What the bench prints about where its request units come from. */
  readonly description: string;
  read(window: MetricWindow): Promise<WindowMetrics>;
}

const MINUTE = 60_000;

/**
 * Azure Monitor through `az`, or why not: `az` missing, not logged in, or no resource group to find the resources
 * in. Nothing it cannot do stops the bench; it then reports no metrics and says so.
 */
export async function openAzureMetrics(
  target: AzureTarget,
  az: Az = runAz,
): Promise<{ metrics: AzureMetrics } | { metrics: undefined; why: string }> {
  if (target.resourceGroup === undefined) return { metrics: undefined, why: 'no AZURE_RESOURCE_GROUP' };
  let subscription: string;
  try {
    subscription = (await az(['account', 'show', '--query', 'name', '-o', 'tsv'])).trim();
  } catch (error) {
    return { metrics: undefined, why: `az is not on PATH or not logged in (${firstLine(error)})` };
  }
  const group = target.resourceGroup;
  const id = async (kind: string[], name: string): Promise<string> =>
    (await az([...kind, 'show', '--resource-group', group, '--name', name, '--query', 'id', '-o', 'tsv'])).trim();
  let cosmosId: string;
  let serviceBusId: string;
  try {
    cosmosId = await id(['cosmosdb'], new URL(target.cosmosEndpoint).hostname.split('.')[0] as string);
    serviceBusId = await id(['servicebus', 'namespace'], target.serviceBusNamespace.split('.')[0] as string);
  } catch (error) {
    return { metrics: undefined, why: `cannot find the resources in ${group} (${firstLine(error)})` };
  }
  const list = async (resource: string, metrics: string[], window: MetricWindow) =>
    metricTotals(
      JSON.parse(
        await az([
          'monitor',
          'metrics',
          'list',
          '--resource',
          resource,
          '--metrics',
          ...metrics,
          '--aggregation',
          'Total',
          '--interval',
          'PT1M',
          '--start-time',
          new Date(Math.floor(window.start / MINUTE) * MINUTE).toISOString(),
          '--end-time',
          new Date(Math.ceil(window.end / MINUTE) * MINUTE).toISOString(),
          '-o',
          'json',
        ]),
      ),
    );
  return {
    metrics: {
      description: `Azure Monitor (az monitor metrics list, subscription "${subscription}"): Cosmos DB TotalRequestUnits, Service Bus IncomingMessages/OutgoingMessages, per whole minute`,
      async read(window) {
        const [cosmos, bus] = await Promise.all([
          list(cosmosId, ['TotalRequestUnits'], window),
          list(serviceBusId, ['IncomingMessages', 'OutgoingMessages'], window),
        ]);
        return {
          requestUnits: cosmos.get('TotalRequestUnits'),
          serviceBusIncoming: bus.get('IncomingMessages'),
          serviceBusOutgoing: bus.get('OutgoingMessages'),
        };
      },
    },
  };
}

/**
 * Each metric's `total`, summed over its time series and data points, from `az monitor metrics list -o json`;
 * `undefined` for a metric without a single `total` (nothing ingested for the window).
 * @internal
 */
export function metricTotals(answer: unknown): Map<string, number | undefined> {
  const totals = new Map<string, number | undefined>();
  const metrics = (answer as { value?: unknown[] } | null)?.value ?? [];
  for (const metric of metrics as {
    name?: { value?: string };
    timeseries?: { data?: { total?: number | null }[] }[];
  }[]) {
    const name = metric.name?.value;
    if (name === undefined) continue;
    const points = (metric.timeseries ?? []).flatMap((series) => series.data ?? []);
    const values = points.map((p) => p.total).filter((t): t is number => typeof t === 'number');
    totals.set(name, values.length === 0 ? undefined : values.reduce((a, b) => a + b, 0));
  }
  return totals;
}

/** Milliseconds until the next whole minute after `now`, so each step's metrics have minutes of their own. */
export function untilNextMinute(now: number): number {
  return MINUTE - (now % MINUTE);
}

const execFileAsync = promisify(execFile);

async function runAz(args: string[]): Promise<string> {
  return (await execFileAsync('az', args, { maxBuffer: 16 * 1024 * 1024 })).stdout;
}

function firstLine(error: unknown): string {
  const e = error as { code?: string; stderr?: string; message?: string };
  if (e.code === 'ENOENT') return 'az not found';
  return (e.stderr?.trim() || e.message || String(error)).split('\n')[0] as string;
}
