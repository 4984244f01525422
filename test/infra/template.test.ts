import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileAndLint } from '../../scripts/infraBuild.js';
import { durationToMs } from '../../scripts/writeEmulatorConfig.js';
import type { BicepCompiler, InfraBuildResult } from '../../scripts/infraBuild.js';
import { declaredResources, locateBicepCompiler, ofType, single, snapshotMainBicep } from './armTemplate.js';
import type { ArmTemplate, DeploymentSnapshot } from './armTemplate.js';

const root = resolve(import.meta.dirname, '..', '..');
const mainBicep = join(root, 'infra', 'main.bicep');
interface EntitySubscription {
  Name: string;
  Properties: Record<string, unknown>;
  Rules: { Name: string; Properties: { FilterType: string; SqlFilter?: { SqlExpression: string } } }[];
}
const entityFile = JSON.parse(readFileSync(join(root, 'infra', 'servicebus.config.json'), 'utf8')) as {
  UserConfig: {
    Namespaces: {
      Queues: { Name: string; Properties: Record<string, unknown> }[];
      Topics: { Name: string; Properties: Record<string, unknown>; Subscriptions: EntitySubscription[] }[];
    }[];
  };
};
const entityQueues = entityFile.UserConfig.Namespaces[0]?.Queues ?? [];
const entityTopics = entityFile.UserConfig.Namespaces[0]?.Topics ?? [];

/** A subscription of the entity file as the template deploys it: ARM properties and its SQL filter, if any. */
function deployedSubscription(s: EntitySubscription) {
  const sql = s.Rules.find((r) => r.Properties.FilterType === 'Sql')?.Properties.SqlFilter?.SqlExpression;
  return {
    name: s.Name,
    properties: {
      requiresSession: s.Properties.RequiresSession,
      lockDuration: s.Properties.LockDuration,
      maxDeliveryCount: s.Properties.MaxDeliveryCount,
      defaultMessageTimeToLive: s.Properties.DefaultMessageTimeToLive,
      deadLetteringOnMessageExpiration: s.Properties.DeadLetteringOnMessageExpiration,
    },
    sqlFilter: sql,
  };
}

/** The subscriptions of `order-events` in a snapshot, each with the SQL filter of its `$Default` rule, if any. */
function subscriptionsOf(snapshot: DeploymentSnapshot) {
  const rules = ofType(snapshot, 'Microsoft.ServiceBus/namespaces/topics/subscriptions/rules');
  return ofType(snapshot, 'Microsoft.ServiceBus/namespaces/topics/subscriptions').map((s) => {
    const rule = rules.find((r) => r.name === `${s.name}/$Default`);
    return {
      name: s.name.split('/').pop(),
      properties: s.properties,
      sqlFilter: (rule?.properties?.sqlFilter as { sqlExpression?: string } | undefined)?.sqlExpression,
    };
  });
}

// Resolved at collection time so machines without bicep/az/dotnet report these suites as skipped.
const compiler = locateBicepCompiler();

const ROLE = {
  serviceBusDataOwner: '090c5cfd-751d-490a-894a-3ce6f1109419',
  serviceBusDataReceiver: '4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0',
  serviceBusDataSender: '69a216fc-b8fb-44d8-bc22-1f3c2cd27a39',
  storageBlobDataOwner: 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b',
  storageQueueDataContributor: '974c5e8b-45b9-4653-ba55-5f855dd0fb88',
  storageTableDataContributor: '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3',
  monitoringMetricsPublisher: '3913510d-42f4-4e42-8a64-420c390055eb',
  cosmosDataContributor: '00000000-0000-0000-0000-000000000002',
} as const;

const USER = '11111111-2222-3333-4444-555555555555';

describe.skipIf(!compiler)('infra/main.bicep compiled to ARM JSON', () => {
  let build: InfraBuildResult;
  let template: ArmTemplate;
  let text: string;
  let outDir: string | undefined;

  beforeAll(() => {
    outDir = mkdtempSync(join(tmpdir(), 'convoy-arm-'));
    build = compileAndLint(compiler as BicepCompiler, mainBicep, join(outDir, 'main.json'));
    text = readFileSync(build.outFile, 'utf8');
    template = JSON.parse(text) as ArmTemplate;
  }, 600_000);

  afterAll(() => {
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });

  it('compiles and lints with zero warnings', () => {
    expect(build.diagnostics.filter((d) => d.level !== 'Info')).toEqual([]);
  });

  it('contains no keys, SAS or secret connection strings', () => {
    expect(text).not.toMatch(/AccountKey|SharedAccessKey|listKeys|listConnectionStrings|primaryKey|primaryMasterKey/i);
  });

  it('uses only local modules (nothing fetched from a registry)', () => {
    const bicepFiles = readdirSync(join(root, 'infra'), { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.bicep'),
    );
    expect(bicepFiles.length).toBeGreaterThanOrEqual(9);
    for (const file of bicepFiles)
      expect(readFileSync(join(root, 'infra', file), 'utf8'), file).not.toMatch(/'(br|ts)[:/]/);
    expect(
      declaredResources(template).filter((d) => d.resource.type === 'Microsoft.Resources/deployments').length,
    ).toBeGreaterThanOrEqual(8);
  });

  it('loops the queues over the entity file and maps each property to its ARM name', () => {
    const queues = declaredResources(template).filter(
      (d) => d.resource.type === 'Microsoft.ServiceBus/namespaces/queues',
    );
    expect(queues).toHaveLength(1);
    const { resource, template: module } = queues[0] as (typeof queues)[number];
    expect(resource.copy?.count).toBe("[length(variables('queues'))]");
    // Bicep inlines the loaded file as a variable: it must be the entity file itself, unchanged.
    const loaded = Object.values(module.variables ?? {}).filter(
      (v) => JSON.stringify(v) === JSON.stringify(entityFile),
    );
    expect(loaded).toHaveLength(1);
    const properties = String(resource.properties);
    for (const [arm, file] of [
      ['requiresSession', 'RequiresSession'],
      ['requiresDuplicateDetection', 'RequiresDuplicateDetection'],
      ['duplicateDetectionHistoryTimeWindow', 'DuplicateDetectionHistoryTimeWindow'],
      ['lockDuration', 'LockDuration'],
      ['maxDeliveryCount', 'MaxDeliveryCount'],
      ['defaultMessageTimeToLive', 'DefaultMessageTimeToLive'],
      ['deadLetteringOnMessageExpiration', 'DeadLetteringOnMessageExpiration'],
    ]) {
      expect(properties).toContain(`'${arm}', variables('queues')[copyIndex()].Properties.${file}`);
    }
    // Set only when the file names one, as forwarding is.
    expect(properties).toContain("variables('queues')[copyIndex()].Properties, 'AutoDeleteOnIdle')");
    expect(properties).toContain("'autoDeleteOnIdle', variables('queues')[copyIndex()].Properties.AutoDeleteOnIdle");
    // The size is not in the entity file: it comes from a parameter.
    expect(properties).toContain("'maxSizeInMegabytes', parameters('maxQueueSizeInMegabytes')");
  });

  it('turns local auth off on Service Bus, Cosmos DB and Application Insights, and shared keys off on storage', () => {
    const byType = (type: string) =>
      declaredResources(template)
        .filter((d) => d.resource.type === type)
        .map((d) => d.resource.properties ?? {});
    expect(byType('Microsoft.ServiceBus/namespaces')).toEqual([expect.objectContaining({ disableLocalAuth: true })]);
    expect(byType('Microsoft.DocumentDB/databaseAccounts')).toEqual([
      expect.objectContaining({ disableLocalAuth: true }),
    ]);
    expect(byType('Microsoft.Insights/components')).toEqual([expect.objectContaining({ DisableLocalAuth: true })]);
    expect(byType('Microsoft.Storage/storageAccounts')).toEqual([
      expect.objectContaining({ allowSharedKeyAccess: false }),
    ]);
  });

  it('runs the function app on Node 22 on a Flex Consumption plan', () => {
    const site = declaredResources(template).find((d) => d.resource.type === 'Microsoft.Web/sites')?.resource;
    expect(site?.properties?.functionAppConfig).toMatchObject({ runtime: { name: 'node', version: '22' } });
    const plan = declaredResources(template).find((d) => d.resource.type === 'Microsoft.Web/serverfarms')?.resource;
    expect(plan?.sku).toEqual({ name: 'FC1', tier: 'FlexConsumption' });
  });

  it('assigns the Cosmos DB data role through sqlRoleAssignments, never through Azure RBAC', () => {
    const sql = declaredResources(template).filter(
      (d) => d.resource.type === 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments',
    );
    expect(sql.length).toBeGreaterThanOrEqual(1);
    const armRoles = declaredResources(template).filter(
      (d) => d.resource.type === 'Microsoft.Authorization/roleAssignments',
    );
    expect(JSON.stringify(armRoles.map((d) => d.resource))).not.toContain(ROLE.cosmosDataContributor);
  });

  it('exposes the settings the app needs as outputs', () => {
    expect(Object.keys(template.outputs ?? {})).toEqual(
      expect.arrayContaining([
        'AZURE_CLIENT_ID',
        'AZURE_FUNCTION_APP_NAME',
        'SERVICEBUS_FULLY_QUALIFIED_NAMESPACE',
        'SERVICEBUS_QUEUES',
        'SERVICEBUS_TOPIC',
        'COSMOS_ENDPOINT',
        'COSMOS_DATABASE',
        'COSMOS_CONTAINER',
        'APPLICATIONINSIGHTS_CONNECTION_STRING',
        'ServiceBusConnection__fullyQualifiedNamespace',
        'CosmosConnection__accountEndpoint',
      ]),
    );
  });
  it('takes COSMOS_DATABASE and COSMOS_CONTAINER from the cosmos module outputs, the names it created', () => {
    const deployments = declaredResources(template)
      .map((d) => d.resource)
      .filter((r) => r.type === 'Microsoft.Resources/deployments');
    const parameter = (module: string, name: string): string =>
      String(
        (
          deployments.find((r) => r.name === module)?.properties?.parameters as
            Record<string, { value?: unknown }> | undefined
        )?.[name]?.value,
      );
    // Symbolic names (languageVersion 2.0, which the template's user-defined types need) or resource ids: the module's output either way.
    const fromCosmos = (output: string) =>
      new RegExp(
        `(reference\\('cosmos'\\)|'Microsoft\\.Resources/deployments', 'cosmos'\\), '[^']+'\\))\\.outputs\\.${output}\\.value\\]$`,
      );
    expect(parameter('functionApp', 'cosmosDatabaseName')).toMatch(fromCosmos('databaseName'));
    expect(parameter('functionApp', 'cosmosContainerName')).toMatch(fromCosmos('containerName'));
    expect(parameter('rbac', 'cosmosDatabaseName')).toMatch(fromCosmos('databaseName'));
    const outputs = template.outputs as Record<string, { value: string }>;
    expect(outputs.COSMOS_DATABASE?.value).toMatch(fromCosmos('databaseName'));
    expect(outputs.COSMOS_CONTAINER?.value).toMatch(fromCosmos('containerName'));
  });
});

describe.skipIf(!compiler || compiler.kind === 'az')(
  'infra/main.bicep evaluated for a deployment (bicep snapshot)',
  () => {
    let defaults: DeploymentSnapshot;
    let alternative: DeploymentSnapshot;
    let downstreams: DeploymentSnapshot;

    beforeAll(() => {
      defaults = snapshotMainBicep(compiler as BicepCompiler, mainBicep, {
        environmentName: 'ci',
        location: 'westeurope',
        principalId: USER,
        alertEmail: 'ops@example.com',
      });
      alternative = snapshotMainBicep(compiler as BicepCompiler, mainBicep, {
        environmentName: 'ci',
        location: 'westeurope',
        serviceBusSku: 'Premium',
        cosmosCapacityMode: 'Provisioned',
        maxConcurrentSessions: 32,
        serviceBusQueueMaxSizeInMegabytes: 2048,
        outboxWebhookUrl: 'https://receiver.example.com/order-events',
        outboxWebhookSecretUri: 'https://convoy-kv.vault.azure.net/secrets/webhook-secret',
      });
      downstreams = snapshotMainBicep(compiler as BicepCompiler, mainBicep, {
        environmentName: 'ci',
        location: 'westeurope',
        orderEventSubscriptions: [
          { name: 'search-index', sqlFilter: "sys.Label = 'convoy.order.transaction-added'" },
          { name: 'audit', defaultMessageTimeToLive: 'PT12H', deadLetteringOnMessageExpiration: true },
        ],
      });
    }, 300_000);

    it('creates exactly the entity file queues, with its names, flags and durations (drift check)', () => {
      const deployed = ofType(defaults, 'Microsoft.ServiceBus/namespaces/queues').map((q) => ({
        name: q.name.split('/').pop(),
        properties: q.properties,
      }));
      const expected = entityQueues.map((q) => ({
        name: q.Name,
        properties: {
          requiresSession: q.Properties.RequiresSession,
          requiresDuplicateDetection: q.Properties.RequiresDuplicateDetection,
          duplicateDetectionHistoryTimeWindow: q.Properties.DuplicateDetectionHistoryTimeWindow,
          lockDuration: q.Properties.LockDuration,
          maxDeliveryCount: q.Properties.MaxDeliveryCount,
          defaultMessageTimeToLive: q.Properties.DefaultMessageTimeToLive,
          deadLetteringOnMessageExpiration: q.Properties.DeadLetteringOnMessageExpiration,
          maxSizeInMegabytes: 1024,
          ...(q.Properties.ForwardTo ? { forwardTo: q.Properties.ForwardTo } : {}),
          ...(q.Properties.ForwardDeadLetteredMessagesTo
            ? { forwardDeadLetteredMessagesTo: q.Properties.ForwardDeadLetteredMessagesTo }
            : {}),
          ...(q.Properties.AutoDeleteOnIdle ? { autoDeleteOnIdle: q.Properties.AutoDeleteOnIdle } : {}),
        },
      }));
      expect(deployed).toEqual(expected);
      const sizes = ofType(alternative, 'Microsoft.ServiceBus/namespaces/queues').map(
        (q) => q.properties?.maxSizeInMegabytes,
      );
      expect(sizes).toEqual(entityQueues.map(() => 2048));
    });

    it('matches the contract: ledger deduplicated without sessions, orders with sessions', () => {
      const flags = Object.fromEntries(
        ofType(defaults, 'Microsoft.ServiceBus/namespaces/queues').map((q) => [
          q.name.split('/').pop(),
          [q.properties?.requiresSession, q.properties?.requiresDuplicateDetection],
        ]),
      );
      expect(flags).toEqual({ ledger: [false, true], orders: [true, true] });
    });

    it('dead-letters expired messages on the work queues', () => {
      const expiry = Object.fromEntries(
        ofType(defaults, 'Microsoft.ServiceBus/namespaces/queues').map((q) => [
          q.name.split('/').pop(),
          q.properties?.deadLetteringOnMessageExpiration,
        ]),
      );
      expect(expiry).toEqual({ ledger: true, orders: true });
    });

    it('creates the order-events topic from the entity file: the duplicate detection, TTL and size the queue had', () => {
      const [fileTopic] = entityTopics;
      expect(entityTopics.map((t) => t.Name)).toEqual(['order-events']);
      const topic = single(defaults, 'Microsoft.ServiceBus/namespaces/topics');
      expect(topic.name.split('/').pop()).toBe('order-events');
      expect(topic.properties).toEqual({
        requiresDuplicateDetection: true,
        duplicateDetectionHistoryTimeWindow: fileTopic?.Properties.DuplicateDetectionHistoryTimeWindow,
        defaultMessageTimeToLive: fileTopic?.Properties.DefaultMessageTimeToLive,
        maxSizeInMegabytes: 1024,
      });
      expect(fileTopic?.Properties).toMatchObject({ DuplicateDetectionHistoryTimeWindow: 'PT1H' });
      expect(single(alternative, 'Microsoft.ServiceBus/namespaces/topics').properties?.maxSizeInMegabytes).toBe(2048);
      expect(defaults.outputs).toMatchObject({
        SERVICEBUS_QUEUES: entityQueues.map((q) => q.Name),
        SERVICEBUS_TOPIC: 'order-events',
        SERVICEBUS_TOPIC_SUBSCRIPTIONS: ['all'],
      });
    });

    it("creates by default exactly the entity file's subscriptions: all, session-enabled, every event, no dead letters on expiry, a day's TTL at most (drift check)", () => {
      const fromFile = (entityTopics[0]?.Subscriptions ?? []).map(deployedSubscription);
      expect(subscriptionsOf(defaults)).toEqual(fromFile);
      const [all] = subscriptionsOf(defaults);
      expect(all).toMatchObject({
        name: 'all',
        properties: { requiresSession: true, deadLetteringOnMessageExpiration: false },
        sqlFilter: undefined,
      });
      expect(durationToMs(String(all?.properties?.defaultMessageTimeToLive))).toBeLessThanOrEqual(86_400_000);
    });

    it('creates one subscription per entry of orderEventSubscriptions, a SQL filter replacing its $Default rule', () => {
      expect(subscriptionsOf(downstreams)).toEqual([
        {
          name: 'search-index',
          properties: {
            requiresSession: true,
            lockDuration: 'PT1M',
            maxDeliveryCount: 10,
            defaultMessageTimeToLive: 'P1D',
            deadLetteringOnMessageExpiration: false,
          },
          sqlFilter: "sys.Label = 'convoy.order.transaction-added'",
        },
        {
          name: 'audit',
          properties: {
            requiresSession: true,
            lockDuration: 'PT1M',
            maxDeliveryCount: 10,
            defaultMessageTimeToLive: 'PT12H',
            deadLetteringOnMessageExpiration: true,
          },
          sqlFilter: undefined,
        },
      ]);
      // `all` left out: the deployment named its own downstreams.
      expect(ofType(downstreams, 'Microsoft.ServiceBus/namespaces/topics/subscriptions/rules')).toHaveLength(1);
      expect(downstreams.outputs).toMatchObject({ SERVICEBUS_TOPIC_SUBSCRIPTIONS: ['search-index', 'audit'] });
    });

    it('references only queues and topics that exist in the entity file (role scopes and alerts)', () => {
      const names = new Set([...entityQueues.map((q) => q.Name), ...entityTopics.map((t) => t.Name)]);
      const referenced = [
        ...ofType(defaults, 'Microsoft.Authorization/roleAssignments').flatMap((r) =>
          [...r.id.matchAll(/\/(?:queues|topics)\/([^/',]+)/g)].map((m) => m[1]),
        ),
        ...ofType(defaults, 'Microsoft.Insights/metricAlerts').flatMap(
          (a) =>
            JSON.stringify(a.properties)
              .match(/"EntityName","operator":"Include","values":\["([^"]+)"/)
              ?.slice(1) ?? [],
        ),
      ];
      expect(referenced.length).toBeGreaterThan(0);
      for (const name of referenced) expect(names).toContain(name);
    });

    it('grants least-privilege roles: per-queue send/receive, host storage, telemetry, and data owner only to the user', () => {
      const rows = ofType(defaults, 'Microsoft.Authorization/roleAssignments').map((r) => {
        const scope =
          /extensionResourceId\('([^']+)'/.exec(r.id)?.[1] ??
          r.id.replace(/\/providers\/Microsoft\.Authorization\/roleAssignments\/.*$/, '');
        const principal = String(r.properties?.principalId).includes('userAssignedIdentities')
          ? 'app'
          : String(r.properties?.principalId);
        const role = String(r.properties?.roleDefinitionId).split('/').pop();
        return `${principal} ${role} ${scope.split('/providers/').pop()}`;
      });
      expect(rows.sort()).toEqual(expectedRoleRows(defaults));
    });

    it('assigns the Cosmos DB Built-in Data Contributor on the convoy database to the app and the user', () => {
      const assignments = ofType(defaults, 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments');
      expect(assignments).toHaveLength(2);
      for (const a of assignments) {
        expect(a.properties?.roleDefinitionId).toMatch(/\/sqlRoleDefinitions\/00000000-0000-0000-0000-000000000002$/);
        expect(a.properties?.scope).toMatch(/\/databaseAccounts\/[^/]+\/dbs\/convoy$/);
      }
      expect(assignments.map((a) => a.properties?.principalId)).toContain(USER);
    });

    it('grants nothing to a user when principalId is empty', () => {
      const principals = [
        ...ofType(alternative, 'Microsoft.Authorization/roleAssignments'),
        ...ofType(alternative, 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments'),
      ].map((r) => String(r.properties?.principalId));
      expect(principals.every((p) => p.includes('userAssignedIdentities'))).toBe(true);
    });

    it('sets the identity-based app settings and host.json tuning, with no secrets', () => {
      const settings = single(defaults, 'Microsoft.Web/sites/config').properties ?? {};
      expect(settings).toMatchObject({
        AzureWebJobsStorage__credential: 'managedidentity',
        ServiceBusConnection__credential: 'managedidentity',
        CosmosConnection__credential: 'managedidentity',
        COSMOS_DATABASE: 'convoy',
        COSMOS_CONTAINER: 'orders',
      });
      // The deployment's defaults are the committed host.json's values, so what docs/benchmarks.md measured is what Azure runs.
      const hostJson = JSON.parse(readFileSync(join(root, 'host.json'), 'utf8')) as {
        extensions: { serviceBus: Record<string, unknown> };
      };
      for (const key of [
        'maxConcurrentSessions',
        'maxConcurrentCalls',
        'sessionIdleTimeout',
        'maxAutoLockRenewalDuration',
      ]) {
        expect(settings[`AzureFunctionsJobHost__extensions__serviceBus__${key}`], key).toBe(
          String(hostJson.extensions.serviceBus[key]),
        );
      }
      // The very names the database and container were created with.
      expect(single(defaults, 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases').name.split('/').pop()).toBe(
        settings.COSMOS_DATABASE,
      );
      expect(
        ofType(defaults, 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers').map((c) =>
          c.name.split('/').pop(),
        ),
      ).toEqual([settings.COSMOS_CONTAINER, 'leases']);
      for (const key of [
        'AzureWebJobsStorage__clientId',
        'AzureWebJobsStorage__blobServiceUri',
        'AzureWebJobsStorage__queueServiceUri',
        'AzureWebJobsStorage__tableServiceUri',
        'ServiceBusConnection__fullyQualifiedNamespace',
        'ServiceBusConnection__clientId',
        'CosmosConnection__accountEndpoint',
        'CosmosConnection__clientId',
        'AZURE_CLIENT_ID',
        'APPLICATIONINSIGHTS_CONNECTION_STRING',
      ]) {
        expect(settings, key).toHaveProperty(key);
      }
      expect(String(settings.APPLICATIONINSIGHTS_AUTHENTICATION_STRING)).toMatch(
        /^\[format\('Authorization=AAD;ClientId=\{0\}', reference\(.*userAssignedIdentities/,
      );
      expect(single(alternative, 'Microsoft.Web/sites/config').properties).toMatchObject({
        AzureFunctionsJobHost__extensions__serviceBus__maxConcurrentSessions: '32',
      });
    });

    it('signs webhook POSTs with a secret read through a Key Vault reference, never the secret itself', () => {
      const site = single(alternative, 'Microsoft.Web/sites');
      expect(String(site.properties?.keyVaultReferenceIdentity)).toMatch(/userAssignedIdentities/);
      expect(single(alternative, 'Microsoft.Web/sites/config').properties).toMatchObject({
        OUTBOX_WEBHOOK_URL: 'https://receiver.example.com/order-events',
        OUTBOX_WEBHOOK_SECRET:
          '@Microsoft.KeyVault(SecretUri=https://convoy-kv.vault.azure.net/secrets/webhook-secret)',
      });
      // Without the parameters: no webhook, unsigned, nothing to resolve.
      const settings = single(defaults, 'Microsoft.Web/sites/config').properties ?? {};
      expect(settings).not.toHaveProperty('OUTBOX_WEBHOOK_URL');
      expect(settings).not.toHaveProperty('OUTBOX_WEBHOOK_SECRET');
    });

    it('defaults to Standard Service Bus and serverless Cosmos DB; Premium and provisioned are parameters', () => {
      expect(single(defaults, 'Microsoft.ServiceBus/namespaces').sku).toMatchObject({
        name: 'Standard',
        tier: 'Standard',
      });
      expect(single(defaults, 'Microsoft.DocumentDB/databaseAccounts').properties?.capabilities).toEqual([
        { name: 'EnableServerless' },
      ]);
      expect(single(alternative, 'Microsoft.ServiceBus/namespaces').sku).toMatchObject({
        name: 'Premium',
        tier: 'Premium',
        capacity: 1,
      });
      expect(single(alternative, 'Microsoft.DocumentDB/databaseAccounts').properties?.capabilities).toEqual([]);
      // What one Premium messaging unit feeds the processor (≈ 1,350 entries/s at ≈ 18.5 RU each), so a Provisioned
      // account does not throttle below what Service Bus lets through (infra/README.md, "Staying inside the Cosmos DB budget").
      expect(single(alternative, 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases').properties).toMatchObject({
        options: { autoscaleSettings: { maxThroughput: 25000 } },
      });
    });

    it('creates the orders container partitioned on /orderId with TTL enabled, and the relay leases container on /id', () => {
      const [orders, leases] = ofType(defaults, 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers');
      expect(orders?.properties).toMatchObject({
        resource: { id: 'orders', partitionKey: { paths: ['/orderId'] }, defaultTtl: -1 },
      });
      expect(leases?.properties).toMatchObject({ resource: { id: 'leases', partitionKey: { paths: ['/id'] } } });
      expect(leases?.properties?.resource).not.toHaveProperty('defaultTtl');
    });

    it("indexes on the orders container only the paths the app's queries filter or sort on, never a stored event", () => {
      const [orders] = ofType(defaults, 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers');
      const policy = (orders?.properties?.resource as { indexingPolicy?: Record<string, unknown> } | undefined)
        ?.indexingPolicy as
        { indexingMode: string; includedPaths: { path: string }[]; excludedPaths: { path: string }[] } | undefined;
      expect(policy?.indexingMode).toBe('consistent');
      expect(policy?.excludedPaths.map((p) => p.path)).toContain('/*');
      // docs/architecture.md, "Indexing": the query each path serves.
      expect(policy?.includedPaths.map((p) => p.path).sort()).toEqual(
        [
          '/docType/?',
          '/status/?',
          '/entryId/?',
          '/addedSequence/?',
          '/sequence/?',
          '/updatedAt/?',
          '/orderId/?',
          '/rejected/[]/alerted/?',
        ].sort(),
      );
      expect(policy?.includedPaths.some((p) => /^\/(event|entry|key)\b/.test(p.path))).toBe(false);
    });

    it('sends alerts to the e-mail parameter, and creates no e-mail receiver when it is empty', () => {
      expect(single(defaults, 'Microsoft.Insights/actionGroups').properties?.emailReceivers).toEqual([
        expect.objectContaining({ emailAddress: 'ops@example.com' }),
      ]);
      expect(single(alternative, 'Microsoft.Insights/actionGroups').properties?.emailReceivers).toEqual([]);
    });
  },
);

function expectedRoleRows(snapshot: DeploymentSnapshot): string[] {
  const nameOf = (type: string): string => `${type}/${single(snapshot, type).name}`;
  const namespace = nameOf('Microsoft.ServiceBus/namespaces');
  const storage = nameOf('Microsoft.Storage/storageAccounts');
  const insights = nameOf('Microsoft.Insights/components');
  return [
    `app ${ROLE.serviceBusDataReceiver} ${namespace}/queues/ledger`,
    `app ${ROLE.serviceBusDataSender} ${namespace}/queues/ledger`,
    `app ${ROLE.serviceBusDataReceiver} ${namespace}/queues/orders`,
    `app ${ROLE.serviceBusDataSender} ${namespace}/queues/orders`,
    `app ${ROLE.serviceBusDataSender} ${namespace}/topics/order-events`,
    `app ${ROLE.storageBlobDataOwner} ${storage}`,
    `app ${ROLE.storageQueueDataContributor} ${storage}`,
    `app ${ROLE.storageTableDataContributor} ${storage}`,
    `app ${ROLE.monitoringMetricsPublisher} ${insights}`,
    `${USER} ${ROLE.serviceBusDataOwner} ${namespace}`,
    `${USER} ${ROLE.monitoringMetricsPublisher} ${insights}`,
  ].sort();
}
