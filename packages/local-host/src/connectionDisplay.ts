import { parseServiceBusConnectionString } from '@azure/service-bus';
import type { AppSettings } from './config/appSettings.js';
import { isLoopbackEndpoint, isLoopbackHost } from 'ledger-convoy/adapters/loopback';
import { COSMOS_EMULATOR_KEY, SERVICE_BUS_EMULATOR_KEY } from '@ledger-convoy/cli/emulatorKeys';

const KEY_FROM_SETTINGS = '(key from settings)';

/**
 * How the startup banner shows a Service Bus connection: in full only for an emulator on this machine with the
 * emulators' placeholder key (safe to copy into another tool); otherwise the endpoint alone, since a connection
 * string from local.settings.json or the environment can carry a real key. Identity-based settings show the
 * namespace; a value that does not parse is not shown at all.
 */
export function displayServiceBusConnection(settings: AppSettings, name = 'ServiceBusConnection'): string {
  const value = settings[name]?.trim();
  if (!value) return identityBased(settings[`${name}__fullyQualifiedNamespace`]);
  let parsed: ReturnType<typeof parseServiceBusConnectionString>;
  try {
    parsed = parseServiceBusConnectionString(value);
  } catch {
    return '(set, not shown: not a connection string)';
  }
  const endpoint = parsed.endpoint.replace(/\/+$/, '');
  if (
    isLoopbackHost(parsed.fullyQualifiedNamespace) &&
    parsed.sharedAccessKey === SERVICE_BUS_EMULATOR_KEY &&
    !parsed.sharedAccessSignature
  )
    return value;
  return `${endpoint} ${KEY_FROM_SETTINGS}`;
}

/** The same for a Cosmos DB connection (`AccountEndpoint=…;AccountKey=…;`), full only with the emulator key on loopback. */
export function displayCosmosConnection(settings: AppSettings, name = 'CosmosConnection'): string {
  const value = settings[name]?.trim();
  if (!value) return identityBased(settings[`${name}__accountEndpoint`]);
  const parts = new Map<string, string>();
  for (const pair of value.split(';')) {
    const at = pair.indexOf('=');
    if (at > 0) parts.set(pair.slice(0, at).trim().toLowerCase(), pair.slice(at + 1).trim());
  }
  const endpoint = parts.get('accountendpoint');
  if (!endpoint) return '(set, not shown: not a connection string)';
  if (isLoopbackEndpoint(endpoint) && parts.get('accountkey') === COSMOS_EMULATOR_KEY) return value;
  return `${endpoint} ${KEY_FROM_SETTINGS}`;
}

function identityBased(endpoint: string | undefined): string {
  return endpoint?.trim() ? `${endpoint.trim()} (identity-based)` : '(not set)';
}
