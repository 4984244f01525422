import type { Logger } from 'pino';
import { AppStartContext, AppTerminateContext } from './azureFunctions.js';
import { registeredFunctions, registeredStartHooks, registeredTerminateHooks } from '../src/functions/register.js';
import type { FunctionRegistration } from '../src/functions/register.js';
import { assertSupported } from './registrations.js';
import type { RegistrationOf } from './registrations.js';

/** Registrations split by trigger kind. */
interface FunctionsByKind {
  http: RegistrationOf<'http'>[];
  timer: RegistrationOf<'timer'>[];
  serviceBusQueue: RegistrationOf<'serviceBusQueue'>[];
  cosmosDB: RegistrationOf<'cosmosDB'>[];
}

/**
 * Imports the app's function modules (`src/functions/index.ts`), which register every function through
 * `register.ts` as a side effect, runs the app's `appStart` hooks as the Functions host does before any invocation,
 * and returns that one list — the same definitions the Functions host gets. Settings must be in `process.env` before
 * this runs: the start hooks read them.
 */
export async function loadAppFunctions(logger: Logger): Promise<readonly FunctionRegistration[]> {
  // Outside the Functions host `@azure/functions` announces "test mode" and that it skips each `app.*` call: true
  // for `app`, misleading here (this host serves them all), so those lines go to debug instead of the console.
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].includes('"@azure/functions" package')) logger.debug(args[0]);
    else warn(...args);
  };
  try {
    await import('../src/functions/index.js');
  } finally {
    console.warn = warn;
  }
  for (const hook of registeredStartHooks()) {
    try {
      await hook(new AppStartContext());
    } catch (error) {
      logger.warn({ err: error }, 'an appStart hook failed');
    }
  }
  return registeredFunctions();
}

/**
 * Shuts the app down as the Functions host does on a graceful stop: runs its `appTerminate` hooks (registered
 * through `register.ts`, the list the real host gets) one after another, each failure logged, then closes the app
 * context (`closeAppContext`, idempotent) in case no hook did — so nothing talks to the emulators after they stop.
 */
export async function closeAppFunctions(logger: Logger): Promise<void> {
  for (const hook of registeredTerminateHooks()) {
    try {
      await hook(new AppTerminateContext());
    } catch (error) {
      logger.warn({ err: error }, 'an appTerminate hook failed');
    }
  }
  const { closeAppContext } = await import('../src/functions/appContext.js');
  await closeAppContext();
}

/**
 * Checks every registration is something the local host can run (see `assertSupported`) and groups them.
 * @throws TypeError on an unsupported definition or a duplicate function name.
 */
export function groupFunctions(registrations: readonly FunctionRegistration[]): FunctionsByKind {
  const groups: FunctionsByKind = { http: [], timer: [], serviceBusQueue: [], cosmosDB: [] };
  const names = new Set<string>();
  for (const registration of registrations) {
    assertSupported(registration);
    if (names.has(registration.name)) throw new TypeError(`function ${registration.name} is registered twice`);
    names.add(registration.name);
    if (registration.kind === 'http') groups.http.push(registration);
    else if (registration.kind === 'timer') groups.timer.push(registration);
    else if (registration.kind === 'cosmosDB') groups.cosmosDB.push(registration);
    else groups.serviceBusQueue.push(registration);
  }
  return groups;
}
