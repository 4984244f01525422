import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveCosmosConnection, resolveServiceBusConnection } from 'ledger-convoy/adapters/azureSettings';
import {
  AzureEnvError,
  azureTarget,
  cliSettingsOf,
  parseAzdValues,
  readAzureValues,
} from '../../bench/support/azureEnv.js';
import { metricTotals, untilNextMinute } from '../../bench/support/azureMonitor.js';

// What `azd env get-values` prints after `azd up` of infra/main.bicep (made-up names).
const AZD_OUTPUT = [
  'AZURE_ENV_NAME="bench-42"',
  'AZURE_FUNCTION_APP_URL="https://func-abc.azurewebsites.net/"',
  'AZURE_RESOURCE_GROUP="rg-bench-42"',
  'COSMOS_CONTAINER="orders"',
  'COSMOS_DATABASE="convoy"',
  'COSMOS_ENDPOINT="https://cosmos-abc.documents.azure.com:443/"',
  'SERVICEBUS_FULLY_QUALIFIED_NAMESPACE="sb-abc.servicebus.windows.net"',
  'SERVICEBUS_QUEUES="[\\"ledger\\",\\"orders\\"]"',
  'SINGLE=\'a "literal" \\n\'',
  'BARE=plain # a comment',
  '# a comment line',
  '',
].join('\n');

describe('bench:azure: the deployment from the azd environment', () => {
  it('reads azd\'s KEY="value" lines, escapes and JSON arrays included', () => {
    // Act
    const values = parseAzdValues(AZD_OUTPUT);
    // Assess
    expect(values).toMatchObject({
      AZURE_ENV_NAME: 'bench-42',
      AZURE_FUNCTION_APP_URL: 'https://func-abc.azurewebsites.net/',
      SINGLE: 'a "literal" \\n',
      BARE: 'plain',
    });
    expect(JSON.parse(values.SERVICEBUS_QUEUES as string)).toEqual(['ledger', 'orders']);
    expect(Object.keys(values)).not.toContain('#');
  });

  it('names the app, its namespace and its container, with identity connections for the CLI', () => {
    // Act
    const target = azureTarget(parseAzdValues(AZD_OUTPUT), 'azd env get-values', 'key-1');
    const settings = cliSettingsOf(target);
    // Assess
    expect(target).toMatchObject({
      functionAppUrl: 'https://func-abc.azurewebsites.net',
      functionKey: 'key-1',
      resourceGroup: 'rg-bench-42',
      source: 'azd env get-values',
    });
    expect(settings).toMatchObject({ httpBaseUrl: target.functionAppUrl, functionKey: 'key-1', embeddedDefaults: [] });
    expect(resolveServiceBusConnection(settings.app)).toMatchObject({
      kind: 'identity',
      fullyQualifiedNamespace: 'sb-abc.servicebus.windows.net',
    });
    expect(resolveCosmosConnection(settings.app)).toMatchObject({
      kind: 'identity',
      endpoint: 'https://cosmos-abc.documents.azure.com:443/',
    });
  });

  it('takes the function key from CONVOY_FUNCTION_KEY when no flag gives one, and says what is missing', () => {
    // Prepare
    const values = { ...parseAzdValues(AZD_OUTPUT), CONVOY_FUNCTION_KEY: 'from-env' };
    // Act / Assess
    expect(azureTarget(values, 'x', undefined).functionKey).toBe('from-env');
    expect(azureTarget(values, 'x', 'flag').functionKey).toBe('flag');
    expect(() => azureTarget({ AZURE_FUNCTION_APP_URL: 'https://a' }, 'the environment', undefined)).toThrow(
      new AzureEnvError(
        'the environment lacks SERVICEBUS_FULLY_QUALIFIED_NAMESPACE, COSMOS_ENDPOINT, COSMOS_DATABASE, COSMOS_CONTAINER. ' +
          'Run `azd up` first, then run the bench where azd finds the environment (or pass --azd-env-file .azure/<env>/.env, or set them in the environment).',
      ),
    );
    expect(() => azureTarget({ ...values, AZURE_FUNCTION_APP_URL: 'func-abc' }, 'x', undefined)).toThrow(
      /must be an http\(s\) URL/,
    );
  });

  it('reads --azd-env-file first, else azd when it is on PATH, else the environment', async () => {
    // Prepare
    const file = join(mkdtempSync(join(tmpdir(), 'bench-azure-')), '.env');
    writeFileSync(file, 'AZURE_FUNCTION_APP_URL="https://from-file"\n');
    const asked: (string | undefined)[] = [];
    const azd = async (environment: string | undefined) => {
      asked.push(environment);
      return 'AZURE_FUNCTION_APP_URL="https://from-azd"\n';
    };
    const env = { AZURE_FUNCTION_APP_URL: 'https://from-env', CONVOY_FUNCTION_KEY: 'k' };

    // Act
    const fromFile = await readAzureValues({ envFile: file, azd, env });
    const fromAzd = await readAzureValues({ environment: 'bench-42', azd, env });
    const fromEnv = await readAzureValues({ azd: async () => undefined, env });

    // Assess
    expect(fromFile).toEqual({
      values: { AZURE_FUNCTION_APP_URL: 'https://from-file', CONVOY_FUNCTION_KEY: 'k' },
      source: file,
    });
    expect(fromAzd).toEqual({
      values: { AZURE_FUNCTION_APP_URL: 'https://from-azd', CONVOY_FUNCTION_KEY: 'k' },
      source: 'azd env get-values',
    });
    expect(asked).toEqual(['bench-42']);
    expect(fromEnv).toEqual({ values: env, source: 'the environment' });
  });
});

describe("bench:azure: Azure Monitor's answers", () => {
  it('sums each metric over its series and minutes, and tells nothing ingested from zero', () => {
    // Prepare: the shape `az monitor metrics list -o json` answers with.
    const answer = {
      value: [
        {
          name: { value: 'IncomingMessages' },
          timeseries: [{ data: [{ total: 120 }, { total: 30.5 }, { timeStamp: 'x' }] }, { data: [{ total: 1 }] }],
        },
        { name: { value: 'OutgoingMessages' }, timeseries: [{ data: [{ total: 0 }] }] },
        { name: { value: 'TotalRequestUnits' }, timeseries: [{ data: [{ timeStamp: 'x', total: null }] }] },
      ],
    };
    // Act / Assess
    expect(metricTotals(answer)).toEqual(
      new Map([
        ['IncomingMessages', 151.5],
        ['OutgoingMessages', 0],
        ['TotalRequestUnits', undefined],
      ]),
    );
    expect(metricTotals({})).toEqual(new Map());
  });

  it('starts a step on the next whole minute', () => {
    expect(untilNextMinute(Date.UTC(2026, 0, 1, 10, 0, 45))).toBe(15_000);
    expect(untilNextMinute(Date.UTC(2026, 0, 1, 10, 1, 0))).toBe(60_000);
  });
});
