import { describe, expect, it } from 'vitest';
import { EMULATOR_KEY } from '@ledger-convoy/cosmos-emulator';
import { displayCosmosConnection, displayServiceBusConnection } from '../src/connectionDisplay.js';
import { COSMOS_EMULATOR_KEY } from '@ledger-convoy/cli/emulatorKeys';
import { parseMainArgs } from '../src/mainArgs.js';
import { startupBanner } from '../src/startupBanner.js';

const EMULATOR_SB =
  'Endpoint=sb://127.0.0.1:5672;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=SAS_KEY_VALUE;UseDevelopmentEmulator=true;';
const EMULATOR_COSMOS = `AccountEndpoint=http://127.0.0.1:8081/;AccountKey=${EMULATOR_KEY};`;
const REAL_SB_KEY = 'c2VjcmV0LXNlcnZpY2UtYnVzLWtleS1kby1ub3QtcHJpbnQ=';
const REAL_COSMOS_KEY = 'c2VjcmV0LWNvc21vcy1rZXktZG8tbm90LXByaW50LWl0LWV2ZXI=';

describe('the startup banner', () => {
  it("prints the emulators' connection strings in full: their keys are public", () => {
    const lines = startupBanner({
      httpUrl: 'http://127.0.0.1:7071/api',
      settings: { ServiceBusConnection: EMULATOR_SB, CosmosConnection: EMULATOR_COSMOS },
      serviceBusAdminPort: 5300,
    });
    expect(lines.join('\n')).toContain(EMULATOR_SB);
    expect(lines.join('\n')).toContain(EMULATOR_COSMOS);
    expect(COSMOS_EMULATOR_KEY).toBe(EMULATOR_KEY);
  });

  it('prints the administration connection string and the certificate its HTTPS port needs', () => {
    const admin = {
      connectionString:
        'Endpoint=sb://127.0.0.1:5301;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=SAS_KEY_VALUE;',
      certFile: '/tmp/sb.pem',
    };
    const text = startupBanner({
      httpUrl: 'http://127.0.0.1:7071/api',
      settings: {},
      serviceBusAdminPort: 5300,
      serviceBusAdministration: admin,
    }).join('\n');
    expect(text).toContain(`Administration        ${admin.connectionString}`);
    expect(text).toContain('NODE_EXTRA_CA_CERTS=/tmp/sb.pem');
  });

  it('prints only the endpoints of connections with real keys, from settings or on another machine', () => {
    // Prepare
    const settings = {
      ServiceBusConnection: `Endpoint=sb://convoy.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${REAL_SB_KEY}`,
      CosmosConnection: `AccountEndpoint=https://convoy.documents.azure.com:443/;AccountKey=${REAL_COSMOS_KEY};`,
    };
    // Act
    const text = startupBanner(
      { httpUrl: 'http://127.0.0.1:7071/api', settings },
      { hostJsonFile: '/tmp/chaos-host.json' },
    ).join('\n');
    // Assess
    expect(text).not.toContain(REAL_SB_KEY);
    expect(text).not.toContain(REAL_COSMOS_KEY);
    expect(text).toContain('sb://convoy.servicebus.windows.net (key from settings)');
    expect(text).toContain('https://convoy.documents.azure.com:443/ (key from settings)');
    expect(text).toContain('host.json             /tmp/chaos-host.json');
  });

  it('hides a real key even on loopback, and the emulator key off loopback', () => {
    expect(
      displayServiceBusConnection({
        ServiceBusConnection: `Endpoint=sb://localhost:5672;SharedAccessKeyName=k;SharedAccessKey=${REAL_SB_KEY}`,
      }),
    ).toBe('sb://localhost:5672 (key from settings)');
    expect(
      displayCosmosConnection({
        CosmosConnection: `AccountEndpoint=https://10.0.0.4:8081/;AccountKey=${EMULATOR_KEY};`,
      }),
    ).toBe('https://10.0.0.4:8081/ (key from settings)');
    expect(
      displayCosmosConnection({ CosmosConnection: `AccountEndpoint=http://[::1]:8081/;AccountKey=${EMULATOR_KEY};` }),
    ).toContain(EMULATOR_KEY);
  });

  it('shows identity-based endpoints, and nothing of a value that does not parse', () => {
    expect(
      displayServiceBusConnection({ ServiceBusConnection__fullyQualifiedNamespace: 'convoy.servicebus.windows.net' }),
    ).toBe('convoy.servicebus.windows.net (identity-based)');
    expect(displayCosmosConnection({ CosmosConnection__accountEndpoint: 'https://convoy.documents.azure.com/' })).toBe(
      'https://convoy.documents.azure.com/ (identity-based)',
    );
    expect(displayServiceBusConnection({})).toBe('(not set)');
    expect(displayCosmosConnection({ CosmosConnection: `secret-${REAL_COSMOS_KEY}` })).not.toContain(REAL_COSMOS_KEY);
  });
});

describe('npm start flags', () => {
  it('passes --host-json to the host as an absolute path, and defaults to the repository host.json', () => {
    expect(parseMainArgs(['--host-json', 'chaos/host.json', '--port', '0'], '/work/x').host).toMatchObject({
      hostJsonFile: '/work/x/chaos/host.json',
      httpPort: 0,
      emulators: true,
    });
    expect(parseMainArgs(['--no-emulators'], '/work/x').host).toMatchObject({
      hostJsonFile: undefined,
      emulators: false,
      serviceBusPort: 5672,
    });
  });

  it('passes --cosmos-throughput on to the Cosmos DB emulator, unmetered without it, and refuses a budget that is not positive', () => {
    expect(parseMainArgs(['--cosmos-throughput', '200'], '/work/x').host.cosmosThroughput).toBe(200);
    expect(parseMainArgs([], '/work/x').host.cosmosThroughput).toBeUndefined();
  });

  it('passes --latency on to both emulators, and none without it', () => {
    expect(parseMainArgs(['--latency', '5'], '/work/x').host.latencyMs).toBe(5);
    expect(parseMainArgs([], '/work/x').host.latencyMs).toBeUndefined();
  });

  it('serves the operator console on 7072 unless --console-port says another port, or 0 to go without it, and prints its URL', () => {
    expect(parseMainArgs([], '/work/x').consolePort).toBe(7072);
    expect(parseMainArgs(['--console-port', '7180'], '/work/x').consolePort).toBe(7180);
    expect(parseMainArgs(['--console-port', '0'], '/work/x').consolePort).toBeUndefined();
    const lines = startupBanner(
      { httpUrl: 'http://127.0.0.1:7071/api', settings: {} },
      { consoleUrl: 'http://127.0.0.1:7072/' },
    );
    expect(lines).toContain('  Operator console      http://127.0.0.1:7072/');
    expect(startupBanner({ httpUrl: 'http://127.0.0.1:7071/api', settings: {} }).join('\n')).not.toContain(
      'Operator console',
    );
  });
});
