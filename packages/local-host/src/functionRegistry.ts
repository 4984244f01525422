import type { App, ComposeAppOptions } from 'ledger-convoy/functions/app';
import type { FunctionRegistration } from 'ledger-convoy/functions/register';
import { assertSupported } from './registrations.js';
import type { RegistrationOf, ServiceBusRegistration } from './registrations.js';

/** Registrations split by trigger kind. */
interface FunctionsByKind {
  http: RegistrationOf<'http'>[];
  timer: RegistrationOf<'timer'>[];
  /** Queue and topic (subscription) triggers. */
  serviceBus: ServiceBusRegistration[];
  cosmosDB: RegistrationOf<'cosmosDB'>[];
}

/**
 * Composes the app (`src/functions/app.ts`, the definitions `src/functions/index.ts` gives the Functions host) and
 * runs its `appStart` hook, as the Functions host does once the app is loaded and before any invocation. Settings
 * must be in `process.env` before this runs: the start hook reads them. The caller runs `terminate()` on shutdown.
 */
export async function loadApp(options: ComposeAppOptions = {}): Promise<App> {
  const { composeApp } = await import('ledger-convoy/functions/app');
  const app = composeApp(options);
  await app.start();
  return app;
}

/**
 * Checks every registration is something the local host can run (see `assertSupported`) and groups them.
 * @throws TypeError on an unsupported definition or a duplicate function name.
 */
export function groupFunctions(registrations: readonly FunctionRegistration[]): FunctionsByKind {
  const groups: FunctionsByKind = { http: [], timer: [], serviceBus: [], cosmosDB: [] };
  const names = new Set<string>();
  for (const registration of registrations) {
    assertSupported(registration);
    if (names.has(registration.name)) throw new TypeError(`function ${registration.name} is registered twice`);
    names.add(registration.name);
    if (registration.kind === 'http') groups.http.push(registration);
    else if (registration.kind === 'timer') groups.timer.push(registration);
    else if (registration.kind === 'cosmosDB') groups.cosmosDB.push(registration);
    else groups.serviceBus.push(registration);
  }
  return groups;
}
