import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BicepCompiler } from '../../scripts/infraBuild.js';
import { MetricName } from '../../src/adapters/metrics.js';
import { AlertName } from '../../src/core/ports/telemetry.js';
import { locateBicepCompiler, ofType, REPO_ROOT, snapshotMainBicep } from './armTemplate.js';
import type { DeploymentSnapshot, PredictedResource } from './armTemplate.js';

const root = REPO_ROOT;
const mainBicep = join(REPO_ROOT, 'infra', 'main.bicep');

const compiler = locateBicepCompiler();

/** Types `samplingSettings.excludedTypes` recognizes (Azure Functions host.json reference). */
const SAMPLING_TYPES = new Set(['Dependency', 'Event', 'Exception', 'PageView', 'Request', 'Trace']);

describe('host.json sampling', () => {
  it('never samples the telemetry alerts are built from: requests, traces (pino lines), events and exceptions', () => {
    const host = JSON.parse(readFileSync(join(root, 'host.json'), 'utf8')) as {
      logging: { applicationInsights: { samplingSettings: { isEnabled: boolean; excludedTypes: string } } };
    };
    const excluded = host.logging.applicationInsights.samplingSettings.excludedTypes.split(';');
    for (const type of excluded) expect(SAMPLING_TYPES, type).toContain(type);
    expect(excluded.sort()).toEqual(['Event', 'Exception', 'Request', 'Trace']);
  });
});

function queryOf(rule: PredictedResource): string {
  const criteria = rule.properties?.criteria as { allOf: { query: string }[] };
  return criteria.allOf.map((c) => c.query).join('\n');
}

describe.skipIf(!compiler || compiler.kind === 'az')('alert rules (bicep snapshot)', () => {
  let defaults: DeploymentSnapshot;
  let tuned: DeploymentSnapshot;

  beforeAll(() => {
    defaults = snapshotMainBicep(compiler as BicepCompiler, mainBicep, {
      environmentName: 'ci',
      location: 'westeurope',
    });
    tuned = snapshotMainBicep(compiler as BicepCompiler, mainBicep, {
      environmentName: 'ci',
      location: 'westeurope',
      orderEventsBacklogThreshold: 5000,
    });
  }, 300_000);

  const rule = (snapshot: DeploymentSnapshot, suffix: string): PredictedResource => {
    const found = [
      ...ofType(snapshot, 'Microsoft.Insights/metricAlerts'),
      ...ofType(snapshot, 'Microsoft.Insights/scheduledQueryRules'),
    ].find((r) => r.name.endsWith(suffix));
    if (!found) throw new Error(`no alert rule named *${suffix}`);
    return found;
  };

  it('alerts on any dead letter in ledger and orders, and on an order-events topic backlog above the threshold parameter, every 5 minutes', () => {
    const metric = ofType(defaults, 'Microsoft.Insights/metricAlerts').map((m) =>
      JSON.stringify(m.properties?.criteria),
    );
    expect(metric).toEqual([
      expect.stringMatching(
        /"metricName":"DeadletteredMessages".*"values":\["ledger"\].*"operator":"GreaterThan","threshold":0,/,
      ),
      expect.stringMatching(
        /"metricName":"DeadletteredMessages".*"values":\["orders"\].*"operator":"GreaterThan","threshold":0,/,
      ),
      expect.stringMatching(
        /"metricName":"ActiveMessages".*"values":\["order-events"\].*"operator":"GreaterThan","threshold":100000,/,
      ),
      expect.stringMatching(/"metricName":"TotalRequests"/),
    ]);
    expect(JSON.stringify(rule(tuned, 'backlog-order-events').properties?.criteria)).toContain('"threshold":5000,');
    // The topic's backlog, checked every 5 minutes: at 1,000 entries/s an undrained subscription fills a 1 GB topic
    // (about a million events) in about 17 minutes, so the alert must not wait a quarter of an hour.
    expect(rule(defaults, 'backlog-order-events').properties).toMatchObject({
      evaluationFrequency: 'PT5M',
      windowSize: 'PT5M',
    });
  });

  it('alerts on Cosmos DB throttling sustained over 15 minutes: the count of 429 answers on the account, checked every 5 minutes', () => {
    const throttled = rule(defaults, 'cosmos-throttled');
    const account = ofType(defaults, 'Microsoft.DocumentDB/databaseAccounts')[0];
    expect(account).toBeDefined();
    expect(throttled.properties?.scopes).toEqual([
      expect.stringMatching(new RegExp(`/Microsoft\\.DocumentDB/databaseAccounts/${String(account?.name)}$`)),
    ]);
    expect(throttled.properties).toMatchObject({
      severity: 2,
      evaluationFrequency: 'PT5M',
      windowSize: 'PT15M',
      autoMitigate: true,
      criteria: {
        allOf: [
          {
            metricNamespace: 'Microsoft.DocumentDB/databaseAccounts',
            metricName: 'TotalRequests',
            dimensions: [{ name: 'StatusCode', operator: 'Include', values: ['429'] }],
            timeAggregation: 'Count',
            operator: 'GreaterThan',
            threshold: 1000,
          },
        ],
      },
    });
  });

  it('fires on every alert the app raises, from its per-alert counters as well as from events and log lines', () => {
    const query = queryOf(rule(defaults, 'app-events'));
    const names = Object.values(AlertName);
    expect(names.length).toBeGreaterThan(0);
    const list = /let names = dynamic\(\[([^\]]*)\]\);/.exec(query)?.[1] ?? '';
    expect(
      list
        .split(',')
        .map((n) => n.trim().replace(/'/g, ''))
        .sort(),
    ).toEqual([...names].sort());
    // The counters are named exactly after the alerts (src/adapters/telemetry.ts) and are never sampled.
    expect(query).toMatch(/customMetrics \| where name in \(names\)/);
    expect(query).toMatch(/customEvents \| where name in \(names\)/);
    expect(query).toMatch(/\btraces\b[\s\S]*where alert in \(names\)/);
    expect(query).toMatch(/summarize events = sum\(n\) by alert/);
  });

  it.each([
    ['outbox-holds', MetricName.OutboxHolds, 0],
    ['outbox-lag', MetricName.OutboxLag, 900],
  ])('raises a stateful alert while the %s gauge is above its threshold', (name, metric, threshold) => {
    const gauge = rule(defaults, name);
    expect(queryOf(gauge)).toContain(`where name == '${metric}'`);
    expect(gauge.properties).toMatchObject({
      autoMitigate: true,
      criteria: {
        allOf: [{ metricMeasureColumn: 'value', timeAggregation: 'Maximum', operator: 'GreaterThan', threshold }],
      },
    });
  });

  it('routes every rule to the one action group', () => {
    const group = ofType(defaults, 'Microsoft.Insights/actionGroups');
    expect(group).toHaveLength(1);
    const groupName = String(group[0]?.name);
    const rules = [
      ...ofType(defaults, 'Microsoft.Insights/metricAlerts'),
      ...ofType(defaults, 'Microsoft.Insights/scheduledQueryRules'),
    ];
    expect(rules).toHaveLength(7);
    for (const r of rules)
      expect(JSON.stringify(r.properties?.actions), r.name).toContain(`/actionGroups/${groupName}`);
  });
});
