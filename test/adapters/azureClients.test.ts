import { CosmosClient } from '@azure/cosmos';
import { DefaultAzureCredential, ManagedIdentityCredential } from '@azure/identity';
import type { AzureMonitorOpenTelemetryOptions } from 'applicationinsights';
import { describe, expect, it, vi } from 'vitest';
import {
  createCosmosClient,
  createCredential,
  createServiceBusClient,
  enableApplicationInsights,
  identityCredential,
} from '../../src/adapters/azureClients.js';
import {
  SettingsError,
  resolveCosmosConnection,
  resolveCredential,
  resolveServiceBusConnection,
  resolveTelemetry,
} from '../../src/adapters/azureSettings.js';
import type { AppSettings } from '../../src/adapters/azureSettings.js';

const emulatorServiceBus =
  'Endpoint=sb://127.0.0.1:5672;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=SAS_KEY_VALUE;UseDevelopmentEmulator=true;';
const secretKey = 'C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==';
const emulatorCosmos = `AccountEndpoint=http://127.0.0.1:8081/;AccountKey=${secretKey};`;

function settingsError(action: () => unknown): SettingsError {
  try {
    action();
  } catch (error) {
    if (error instanceof SettingsError) return error;
    throw error;
  }
  throw new Error('expected a SettingsError');
}

describe('credentials', () => {
  it('uses DefaultAzureCredential, preferring <prefix>__clientId over AZURE_CLIENT_ID', () => {
    expect(resolveCredential({ AZURE_CLIENT_ID: 'app' }, 'X')).toEqual({
      kind: 'default',
      clientId: 'app',
    });
    expect(resolveCredential({ AZURE_CLIENT_ID: 'app', X__clientId: 'x' }, 'X')).toEqual({
      kind: 'default',
      clientId: 'x',
    });
    expect(resolveCredential({}, 'X')).toEqual({ kind: 'default', clientId: undefined });
  });

  it('uses the managed identity when <prefix>__credential=managedidentity, and refuses other values', () => {
    expect(resolveCredential({ X__credential: 'ManagedIdentity', AZURE_CLIENT_ID: 'app' }, 'X')).toEqual({
      kind: 'managedIdentity',
      clientId: 'app',
    });
    const error = settingsError(() => resolveCredential({ X__credential: 'azurecli' }, 'X'));
    expect([error.code, error.setting]).toEqual(['InvalidSetting', 'X__credential']);
  });

  it('builds the matching credential class without contacting Azure', async () => {
    expect(await identityCredential({ kind: 'managedIdentity', clientId: 'id' })).toBeInstanceOf(
      ManagedIdentityCredential,
    );
    expect(await identityCredential({ kind: 'managedIdentity', clientId: undefined })).toBeInstanceOf(
      ManagedIdentityCredential,
    );
    expect(await identityCredential({ kind: 'default', clientId: 'id' })).toBeInstanceOf(DefaultAzureCredential);
  });

  it('hands out a credential that asks the matching class for each token, building it once', async () => {
    // Prepare: the managed identity answers without the instance metadata service.
    const getToken = vi
      .spyOn(ManagedIdentityCredential.prototype, 'getToken')
      .mockResolvedValue({ token: 't-1', expiresOnTimestamp: 1 });
    try {
      const credential = createCredential({ kind: 'managedIdentity', clientId: 'id' });
      // Act
      const first = await credential.getToken('https://servicebus.azure.net/.default');
      const second = await credential.getToken(['https://cosmos.azure.com/.default']);
      // Assess
      expect([first?.token, second?.token]).toEqual(['t-1', 't-1']);
      expect(getToken.mock.calls.map(([scopes]: unknown[]) => scopes)).toEqual([
        'https://servicebus.azure.net/.default',
        ['https://cosmos.azure.com/.default'],
      ]);
      expect(new Set(getToken.mock.contexts).size).toBe(1);
    } finally {
      getToken.mockRestore();
    }
  });
});

describe('Service Bus settings', () => {
  it('takes the connection string, which wins over the namespace, and recognises the emulator', async () => {
    const settings = {
      ServiceBusConnection: emulatorServiceBus,
      ServiceBusConnection__fullyQualifiedNamespace: 'ns.servicebus.windows.net',
    };
    expect(resolveServiceBusConnection(settings)).toEqual({
      kind: 'connectionString',
      connectionString: emulatorServiceBus,
      emulator: true,
    });
    const client = createServiceBusClient(settings);
    expect(client.fullyQualifiedNamespace).toBe('127.0.0.1');
    await client.close();
  });

  it('uses the namespace with managed identity when no connection string is set', async () => {
    const settings: AppSettings = {
      ServiceBusConnection__fullyQualifiedNamespace: 'sb://ns.servicebus.windows.net/',
      ServiceBusConnection__credential: 'managedidentity',
      ServiceBusConnection__clientId: 'uami',
    };
    expect(resolveServiceBusConnection(settings)).toEqual({
      kind: 'identity',
      fullyQualifiedNamespace: 'ns.servicebus.windows.net',
      credential: { kind: 'managedIdentity', clientId: 'uami' },
    });
    const client = createServiceBusClient(settings);
    expect(client.fullyQualifiedNamespace).toBe('ns.servicebus.windows.net');
    await client.close();
  });

  it('names both settings when neither is set, and treats blank as unset', () => {
    const error = settingsError(() => resolveServiceBusConnection({ ServiceBusConnection: '  ' }));
    expect([error.code, error.setting]).toEqual(['MissingSetting', 'ServiceBusConnection']);
    expect(error.message).toMatch(
      /ServiceBusConnection \(a connection string.*ServiceBusConnection__fullyQualifiedNamespace/,
    );
  });

  it('rejects a malformed connection string without echoing it', () => {
    for (const bad of ['not-a-connection-string', 'Endpoint=sb://x/;SharedAccessKeyName=k', 'Endpoint=sb://x/']) {
      const error = settingsError(() => resolveServiceBusConnection({ ServiceBusConnection: bad }));
      expect([error.code, error.setting]).toEqual(['InvalidSetting', 'ServiceBusConnection']);
      expect(error.message).not.toContain(bad);
    }
  });
});

describe('Cosmos DB settings', () => {
  it('splits the connection string on the first "=" so base64 keys survive', () => {
    expect(resolveCosmosConnection({ CosmosConnection: emulatorCosmos })).toEqual({
      kind: 'key',
      endpoint: 'http://127.0.0.1:8081/',
      key: secretKey,
    });
    const client = createCosmosClient({ CosmosConnection: emulatorCosmos });
    expect(client).toBeInstanceOf(CosmosClient);
    client.dispose();
  });

  it('uses the account endpoint with DefaultAzureCredential and AZURE_CLIENT_ID', () => {
    const settings = {
      CosmosConnection__accountEndpoint: 'https://acct.documents.azure.com:443/',
      AZURE_CLIENT_ID: 'app',
    };
    expect(resolveCosmosConnection(settings)).toEqual({
      kind: 'identity',
      endpoint: 'https://acct.documents.azure.com:443/',
      credential: { kind: 'default', clientId: 'app' },
    });
    createCosmosClient(settings).dispose();
  });

  it('names the missing setting and never echoes a key', () => {
    const missing = settingsError(() => resolveCosmosConnection({}));
    expect([missing.code, missing.setting]).toEqual(['MissingSetting', 'CosmosConnection']);
    expect(missing.message).toContain('CosmosConnection__accountEndpoint');
    const noEndpoint = settingsError(() => resolveCosmosConnection({ CosmosConnection: `AccountKey=${secretKey}` }));
    expect([noEndpoint.code, noEndpoint.setting]).toEqual(['InvalidSetting', 'CosmosConnection']);
    expect(noEndpoint.message).not.toContain(secretKey);
  });
});

describe('Application Insights', () => {
  const connectionString =
    'InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=https://127.0.0.1:9/';

  function recorder() {
    const seen: (AzureMonitorOpenTelemetryOptions | undefined)[] = [];
    let loads = 0;
    const load = () => {
      loads += 1;
      return Promise.resolve({
        useAzureMonitor: (options?: AzureMonitorOpenTelemetryOptions) => void seen.push(options),
      });
    };
    return { seen, load, loads: () => loads };
  }

  it('stays off, without loading the SDK, when no connection string is set', async () => {
    const fake = recorder();
    expect(
      await enableApplicationInsights({ APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'Authorization=AAD' }, fake.load),
    ).toBe(false);
    expect(fake.loads()).toBe(0);
  });

  it('starts with the connection string and no credential when no Entra ID auth is asked for', async () => {
    const fake = recorder();
    expect(
      await enableApplicationInsights({ APPLICATIONINSIGHTS_CONNECTION_STRING: connectionString }, fake.load),
    ).toBe(true);
    expect(fake.seen).toEqual([{ azureMonitorExporterOptions: { connectionString } }]);
  });

  it('passes a managed-identity credential for Authorization=AAD', async () => {
    const fake = recorder();
    const settings = {
      APPLICATIONINSIGHTS_CONNECTION_STRING: connectionString,
      APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'Authorization=AAD;ClientId=uami',
    };
    expect(resolveTelemetry(settings)?.credential).toEqual({ kind: 'managedIdentity', clientId: 'uami' });
    await enableApplicationInsights(settings, fake.load);
    expect(fake.seen[0]?.azureMonitorExporterOptions?.credential).toBeInstanceOf(ManagedIdentityCredential);
    expect(
      resolveTelemetry({ ...settings, APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'Authorization=AAD' })?.credential,
    ).toEqual({
      kind: 'managedIdentity',
      clientId: undefined,
    });
  });

  it('refuses an authentication string that is not Entra ID', () => {
    const error = settingsError(() =>
      resolveTelemetry({
        APPLICATIONINSIGHTS_CONNECTION_STRING: connectionString,
        APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'Authorization=Key',
      }),
    );
    expect([error.code, error.setting]).toEqual(['InvalidSetting', 'APPLICATIONINSIGHTS_AUTHENTICATION_STRING']);
  });
});
