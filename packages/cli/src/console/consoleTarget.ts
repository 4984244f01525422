import { parseServiceBusConnectionString } from '@azure/service-bus';
import { resolveCosmosConnection, resolveServiceBusConnection } from 'ledger-convoy/adapters/azureSettings';
import { isLoopbackEndpoint } from 'ledger-convoy/adapters/loopback';
import type { CliSettings } from '../settings.js';
import type { ConsoleTelemetry } from './consoleTelemetry.js';

/** What the console works against. */
export interface ConsoleTarget {
  /** The CLI's connections: every action runs the CLI's own code with them. */
  readonly settings: CliSettings;
  /** The Service Bus emulator's stats URL (`convoy sessions --admin`). @default derived as `convoy sessions` does */
  readonly admin?: string;
  /** `emulator` when both Service Bus and Cosmos DB are emulators on this machine; `azure` otherwise. */
  readonly kind: 'emulator' | 'azure';
  /** Service Bus namespace and Cosmos DB endpoint, for the header: never a key. */
  readonly label: string;
  /** The app's alerts and applied count, only when the console runs in the app's process. */
  readonly telemetry?: ConsoleTelemetry;
}

/** Describes the target of these settings: emulator or deployed, and a label without secrets. */
export function consoleTarget(
  settings: CliSettings,
  extras: { admin?: string; telemetry?: ConsoleTelemetry } = {},
): ConsoleTarget {
  const serviceBus = resolveServiceBusConnection(settings.app);
  let cosmosEndpoint: string | undefined;
  try {
    cosmosEndpoint = resolveCosmosConnection(settings.app).endpoint;
  } catch {
    cosmosEndpoint = undefined;
  }
  const namespace =
    serviceBus.kind === 'connectionString'
      ? parseServiceBusConnectionString(serviceBus.connectionString).fullyQualifiedNamespace
      : serviceBus.fullyQualifiedNamespace;
  const emulator =
    serviceBus.kind === 'connectionString' &&
    serviceBus.emulator &&
    (cosmosEndpoint === undefined || isLoopbackEndpoint(cosmosEndpoint));
  return {
    settings,
    admin: extras.admin,
    kind: emulator ? 'emulator' : 'azure',
    label: `Service Bus ${namespace} · Cosmos DB ${cosmosEndpoint ?? '(not configured)'}`,
    telemetry: extras.telemetry,
  };
}
