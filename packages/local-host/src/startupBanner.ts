import { displayCosmosConnection, displayServiceBusConnection } from './connectionDisplay.js';
import type { LocalHost } from './localHost.js';

/**
 * The lines `npm start` prints once the host is up. Connection strings appear in full only for the emulators
 * (their keys are public); any other key stays out of the terminal and its scrollback.
 */
export function startupBanner(
  host: Pick<LocalHost, 'httpUrl' | 'settings' | 'serviceBusAdminPort' | 'serviceBusAdministration'>,
  extras: { dataDir?: string; hostJsonFile?: string; consoleUrl?: string } = {},
): string[] {
  const admin = host.serviceBusAdministration;
  return [
    'Ledger Convoy is running locally.',
    `  Functions (HTTP)      ${host.httpUrl}`,
    `  ServiceBusConnection  ${displayServiceBusConnection(host.settings)}`,
    `  CosmosConnection      ${displayCosmosConnection(host.settings)}`,
    ...(extras.consoleUrl ? [`  Operator console      ${extras.consoleUrl}`] : []),
    ...(host.serviceBusAdminPort !== undefined
      ? [`  Service Bus admin     http://127.0.0.1:${host.serviceBusAdminPort}/ (health, stats, management API)`]
      : []),
    // The JS administration client only speaks HTTPS; .NET takes the HTTP port with UseDevelopmentEmulator=true.
    ...(admin ? [`  Administration        ${admin.connectionString}`] : []),
    ...(admin && !/UseDevelopmentEmulator=true/i.test(admin.connectionString)
      ? [`                        (HTTPS: trust it with NODE_EXTRA_CA_CERTS=${admin.certFile})`]
      : []),
    ...(extras.hostJsonFile ? [`  host.json             ${extras.hostJsonFile}`] : []),
    ...(extras.dataDir ? [`  Durable data          ${extras.dataDir}`] : []),
    'Ctrl-C drains in-flight messages and stops; press it twice to exit at once.',
  ];
}
