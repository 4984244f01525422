import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BicepCompiler } from '../../scripts/infraBuild.js';
import { MetricName } from '../../src/adapters/metrics.js';
import { DeadLetterReason } from '../../src/core/deadLetterReasons.js';
import { CounterName } from '../../src/core/ports/telemetry.js';
import type { AlertName, AlertFields, LogLevel, Telemetry } from '../../src/core/ports/telemetry.js';
import { ProcessOutcome, reportResult } from '../../src/core/processor/processResult.js';
import type { ProcessResult } from '../../src/core/processor/processResult.js';
import { locateBicepCompiler, ofType, REPO_ROOT, single, snapshotMainBicep } from './armTemplate.js';
import type { DeploymentSnapshot, PredictedResource } from './armTemplate.js';

const mainBicep = join(REPO_ROOT, 'infra', 'main.bicep');
const compiler = locateBicepCompiler();
const BASE = { environmentName: 'ci', location: 'westeurope' } as const;

interface WorkbookItem {
  readonly type: number;
  readonly name: string;
  readonly content: Record<string, unknown> & { query?: string; items?: WorkbookItem[] };
}

/** Every item of a workbook definition, groups flattened. */
function workbookItems(items: readonly WorkbookItem[]): WorkbookItem[] {
  return items.flatMap((i) => [i, ...workbookItems(i.content.items ?? [])]);
}

/** The counters the processor increments for each outcome, with their attributes (the real `reportResult`). */
function countedOutcomes(): { name: string; attributes: Readonly<Record<string, string>> | undefined }[] {
  const counted: { name: string; attributes: Readonly<Record<string, string>> | undefined }[] = [];
  const telemetry: Telemetry = {
    log: (_level: LogLevel, _message: string, _fields: Readonly<Record<string, unknown>>) => undefined,
    alert: (_name: AlertName, _fields: AlertFields) => undefined,
    count: (name, attributes) => counted.push({ name, attributes }),
  };
  for (const outcome of Object.values(ProcessOutcome)) {
    const result = {
      outcome,
      rule: 1,
      ...(outcome === ProcessOutcome.DeadLettered && { reason: DeadLetterReason.SequenceConflict }),
      orderId: 'o-1',
      entryId: 'e-1',
      sequence: 1,
      messageId: 'm-1',
      requestHash: undefined,
      drained: 0,
      rejected: 0,
      durationMs: 1,
    } as ProcessResult;
    reportResult(telemetry, result);
  }
  return counted;
}

describe('workbook definition (infra/app/workbook.json)', () => {
  const text = readFileSync(join(REPO_ROOT, 'infra', 'app', 'workbook.json'), 'utf8');
  const workbook = JSON.parse(text) as { version: string; items: WorkbookItem[] };
  const items = workbookItems(workbook.items);
  const query = (name: string): string => {
    const item = items.find((i) => i.name === name);
    if (item?.content.query === undefined) throw new Error(`no query item ${name}`);
    return item.content.query;
  };

  it('names only instruments the app defines, and the counters it increments per outcome', () => {
    const known = new Set<string>([...Object.values(MetricName), ...Object.values(CounterName)]);
    // Quoted in queries ('convoy.outbox.holds'), in backticks in the panels' text.
    const used = [...text.matchAll(/['`](convoy\.[a-z_.]+)['`]/g)].map((m) => String(m[1]));
    expect(used.length).toBeGreaterThan(0);
    for (const name of used) expect(known, name).toContain(name);

    // Entries per minute: exactly the counters reportResult increments, one per outcome.
    const counted = countedOutcomes();
    const listed = /where name in \(([^)]*)\)/
      .exec(query('entries-per-minute'))?.[1]
      ?.split(',')
      .map((n) => n.trim().replace(/'/g, ''));
    expect(listed?.sort()).toEqual([...new Set(counted.map((c) => c.name))].sort());
    expect(listed).toContain(CounterName.EntriesApplied);
    // Counters are exported as deltas, one row per export interval: per-minute figures are sums of valueSum.
    expect(query('entries-per-minute')).toContain(
      'summarize entries = sum(valueSum) / (max_of({TimeRange:grain}, 1m) / 1m) by outcome, bin(timestamp, max_of({TimeRange:grain}, 1m))',
    );
  });

  it("reads dead letters by reason from the attribute the processor sets, and the splitter's dead letters from its log line", () => {
    const deadLettered = countedOutcomes().find((c) => c.name === CounterName.EntriesDeadLettered);
    expect(Object.keys(deadLettered?.attributes ?? {})).toEqual(['reason']);
    const q = query('dead-letters-by-reason');
    expect(q).toContain(`where name == '${CounterName.EntriesDeadLettered}'`);
    expect(q).toContain('reason = tostring(customDimensions.reason)');
    const splitter = readFileSync(join(REPO_ROOT, 'src', 'functions', 'ledgerSplitter.ts'), 'utf8');
    const line = /where message has '([^']+)'/.exec(q)?.[1];
    expect(line).toBeDefined();
    expect(splitter).toContain(`'${line}'`);
    expect(q).toMatch(/summarize deadLetters = sum\(n\).* by queue, reason/);
  });

  it('charts the outbox holds and lag, and the parked entries, from the gauges the app reports', () => {
    expect(query('outbox-holds')).toContain(`where name == '${MetricName.OutboxHolds}'`);
    expect(query('outbox-lag')).toContain(`where name == '${MetricName.OutboxLag}'`);
    expect(query('parked-entries')).toContain(`'${MetricName.ParkedEntries}', '${MetricName.OldestGapAge}'`);
  });

  it('shows the orders backlog, dead letters per queue and throttling per queue from the Service Bus metrics', () => {
    const metric = (name: string) =>
      items.find((i) => i.name === name)?.content as {
        resourceIds: string[];
        metrics: { metric: string; splitBy?: string[] }[];
        filters?: unknown[];
      };
    expect(metric('orders-backlog')).toMatchObject({
      resourceIds: ['__SERVICE_BUS_ID__'],
      metrics: [{ metric: 'microsoft.servicebus/namespaces--ActiveMessages' }],
      filters: [{ key: 'EntityName', operator: 0, values: ['orders'] }],
    });
    expect(metric('dead-letters-by-queue').metrics).toEqual([
      expect.objectContaining({
        metric: 'microsoft.servicebus/namespaces--DeadletteredMessages',
        splitBy: ['EntityName'],
      }),
    ]);
    expect(metric('servicebus-throttled').metrics).toEqual([
      expect.objectContaining({
        metric: 'microsoft.servicebus/namespaces--ThrottledRequests',
        splitBy: ['EntityName'],
      }),
    ]);
  });

  it('answers RUs, throttling, cost per operation and hot partitions from the Cosmos DB resource logs, and failures from the function invocations', () => {
    expect(query('cosmos-ru')).toMatch(
      /CDBDataPlaneRequests[\s\S]*sum\(RequestCharge\)[\s\S]*countif\(StatusCode == 429\)/,
    );
    expect(query('cosmos-cost')).toMatch(/CDBDataPlaneRequests[\s\S]*by CollectionName, OperationName/);
    expect(query('cosmos-hot-partitions')).toMatch(
      /CDBPartitionKeyRUConsumption[\s\S]*by CollectionName, PartitionKey/,
    );
    expect(query('function-failures')).toMatch(/requests\s*\| where success == false[\s\S]*by operation_Name/);
    for (const name of ['cosmos-ru', 'cosmos-cost', 'cosmos-hot-partitions']) {
      expect(items.find((i) => i.name === name)?.content, name).toMatchObject({
        crossComponentResources: ['__LOG_ANALYTICS_ID__'],
      });
    }
  });

  it('scopes every query and chart to the one time range parameter', () => {
    const parameters = items.find((i) => i.type === 9)?.content.parameters as { name: string; type: number }[];
    expect(parameters).toEqual([expect.objectContaining({ name: 'TimeRange', type: 4 })]);
    const panels = items.filter((i) => i.type === 3 || i.type === 10);
    expect(panels.length).toBeGreaterThanOrEqual(12);
    for (const panel of panels) expect(panel.content.timeContextFromParameter, panel.name).toBe('TimeRange');
  });
});

describe.skipIf(!compiler || compiler.kind === 'az')('backup, diagnostics and workbook (bicep snapshot)', () => {
  let defaults: DeploymentSnapshot;
  let thirtyDays: DeploymentSnapshot;

  beforeAll(() => {
    defaults = snapshotMainBicep(compiler as BicepCompiler, mainBicep, BASE);
    thirtyDays = snapshotMainBicep(compiler as BicepCompiler, mainBicep, {
      ...BASE,
      cosmosBackupTier: 'Continuous30Days',
    });
  }, 300_000);

  it('backs Cosmos DB up continuously: 7 days by default, 30 by parameter', () => {
    expect(single(defaults, 'Microsoft.DocumentDB/databaseAccounts').properties?.backupPolicy).toEqual({
      type: 'Continuous',
      continuousModeProperties: { tier: 'Continuous7Days' },
    });
    expect(single(thirtyDays, 'Microsoft.DocumentDB/databaseAccounts').properties?.backupPolicy).toEqual({
      type: 'Continuous',
      continuousModeProperties: { tier: 'Continuous30Days' },
    });
  });

  it('sends Service Bus, Cosmos DB, Storage (account, blob, queue, table) and the function app to the workspace, in resource-specific tables', () => {
    const workspace = single(defaults, 'Microsoft.OperationalInsights/workspaces').id;
    const settings = ofType(defaults, 'Microsoft.Insights/diagnosticSettings');
    const scopeOf = (s: PredictedResource) =>
      s.id.replace(/\/providers\/Microsoft\.Insights\/diagnosticSettings\/[^/]+$/, '');
    const id = (type: string) => single(defaults, type).id;
    const storage = id('Microsoft.Storage/storageAccounts');
    expect(settings.map(scopeOf).sort()).toEqual(
      [
        id('Microsoft.ServiceBus/namespaces'),
        id('Microsoft.DocumentDB/databaseAccounts'),
        storage,
        `${storage}/blobServices/default`,
        `${storage}/queueServices/default`,
        `${storage}/tableServices/default`,
        id('Microsoft.Web/sites'),
      ].sort(),
    );
    for (const s of settings)
      expect(s.properties, s.id).toMatchObject({ workspaceId: workspace, logAnalyticsDestinationType: 'Dedicated' });
  });

  it('collects the categories that say which queue is throttled, which partition is hot, what a request cost and why a function failed', () => {
    const settingOn = (type: string, suffix = '') =>
      ofType(defaults, 'Microsoft.Insights/diagnosticSettings').find((s) =>
        s.id.startsWith(`${single(defaults, type).id}${suffix}/providers/`),
      )?.properties as {
        logs?: { category?: string; categoryGroup?: string; enabled: boolean }[];
        metrics?: { category: string; enabled: boolean }[];
      };
    const logs = (p: ReturnType<typeof settingOn>) =>
      (p.logs ?? []).filter((l) => l.enabled).map((l) => l.category ?? `group:${l.categoryGroup}`);
    const metrics = (p: ReturnType<typeof settingOn>) =>
      (p.metrics ?? []).filter((m) => m.enabled).map((m) => m.category);

    // Service Bus: every log category (DiagnosticErrorLogs names the throttled entity) and all metrics.
    expect(logs(settingOn('Microsoft.ServiceBus/namespaces'))).toEqual(['group:allLogs']);
    expect(metrics(settingOn('Microsoft.ServiceBus/namespaces'))).toEqual(['AllMetrics']);
    const cosmos = settingOn('Microsoft.DocumentDB/databaseAccounts');
    expect(logs(cosmos)).toEqual(
      expect.arrayContaining([
        'DataPlaneRequests',
        'PartitionKeyRUConsumption',
        'PartitionKeyStatistics',
        'QueryRuntimeStatistics',
        'ControlPlaneRequests',
      ]),
    );
    expect(metrics(cosmos)).toEqual(['Requests']);
    for (const service of ['blobServices', 'queueServices', 'tableServices']) {
      const p = settingOn('Microsoft.Storage/storageAccounts', `/${service}/default`);
      expect(logs(p).sort(), service).toEqual(['StorageDelete', 'StorageRead', 'StorageWrite']);
      expect(metrics(p), service).toEqual(['Transaction']);
    }
    expect(logs(settingOn('Microsoft.Web/sites'))).toEqual(['FunctionAppLogs']);
  });

  it('deploys the workbook with every placeholder replaced by the resource it reads', () => {
    const workbook = single(defaults, 'Microsoft.Insights/workbooks');
    const insights = single(defaults, 'Microsoft.Insights/components').id;
    expect(workbook).toMatchObject({
      kind: 'shared',
      properties: { category: 'workbook', sourceId: insights, version: 'Notebook/1.0' },
    });
    expect(workbook.name).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const data = String(workbook.properties?.serializedData);
    expect(data).not.toMatch(/__[A-Z_]+__/);
    const definition = JSON.parse(data) as { items: WorkbookItem[] };
    const items = workbookItems(definition.items);
    const targets = new Set(
      items.flatMap((i) => [
        ...((i.content.crossComponentResources as string[] | undefined) ?? []),
        ...((i.content.resourceIds as string[] | undefined) ?? []),
      ]),
    );
    expect([...targets].sort()).toEqual(
      [
        insights,
        single(defaults, 'Microsoft.OperationalInsights/workspaces').id,
        single(defaults, 'Microsoft.ServiceBus/namespaces').id,
      ].sort(),
    );
    expect(defaults.outputs.AZURE_WORKBOOK_ID).toBeDefined();
  });
});
