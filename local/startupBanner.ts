import { displayCosmosConnection, displayServiceBusConnection } from './connectionDisplay.js';
import type { LocalHost } from './localHost.js';

/**
 * The lines `npm start` prints once the host is up. Connection strings appear in full only for the emulators
 * (their keys are public); any other key stays out of the terminal and its scrollback.
 */
export function startupBanner(host: Pick<LocalHost, 'httpUrl' | 'settings' | 'serviceBusAdminPort'>, extras: { dataDir?: string; hostJsonFile?: string } = {}): string[] {
  return [
    'Ledger Convoy is running locally.',
    `  Functions (HTTP)      ${host.httpUrl}`,
    `  ServiceBusConnection  ${displayServiceBusConnection(host.settings)}`,
    `  CosmosConnection      ${displayCosmosConnection(host.settings)}`,
    ...(host.serviceBusAdminPort !== undefined ? [`  Service Bus admin     http://127.0.0.1:${host.serviceBusAdminPort}/`] : []),
    ...(extras.hostJsonFile ? [`  host.json             ${extras.hostJsonFile}`] : []),
    ...(extras.dataDir ? [`  Durable data          ${extras.dataDir}`] : []),
    'Ctrl-C drains in-flight messages and stops; press it twice to exit at once.',
  ];
}
