/**
 * The composition root: the one place that builds the app's objects and hands them to its functions. At host start
 * (`appStart`) the app context is built from the app settings, so an unusable setting is logged once, by name — and
 * every invocation then fails with that same error (a throw at import would leave the host with no functions at
 * all, and nothing to say why). Each function receives the context as its first parameter; none looks it up. On a
 * graceful shutdown (`appTerminate`) the senders and clients close (and with them their AMQP links and sockets), so
 * in-flight sends finish and the broker sees a clean detach rather than a dropped connection.
 */
import type { AppSettings } from '../adapters/azureSettings.js';
import { createAppContext, type AppContext, type AppContextDeps } from './appContext.js';
import { gapMonitorFunction } from './gapMonitor.js';
import { getOrderFunction } from './getOrder.js';
import { ledgerSplitterFunction } from './ledgerSplitter.js';
import { orderProcessorFunction } from './orderProcessor.js';
import { outboxGaugesFunction } from './outboxGauges.js';
import { outboxHoldRetryFunction } from './outboxHoldRetry.js';
import { outboxRelayFunction } from './outboxRelay.js';
import { postLedgerFunction } from './postLedger.js';
import type { HostedApp } from './register.js';

/** The app: its functions, its hooks, and the context they run with. */
export interface App extends HostedApp {
  /**
   * The context the functions run with: the one built at start, or — after `terminate`, or where no start hook ran —
   * one built now from the settings. Throws the error the settings gave, the same instance every time.
   */
  context(): AppContext;
}

/** What {@link composeApp} takes: the settings, and what a host or a test hands the context. */
export interface ComposeOptions extends AppContextDeps {
  /** The app settings, read at each start. @default process.env */
  settings?: () => AppSettings;
}

/** Composes the app: every function, bound to the context its hooks build and close. */
export function composeApp(options: ComposeOptions = {}): App {
  const { settings = () => process.env, ...deps } = options;
  let built: AppContext | { error: unknown } | undefined;
  const build = (): AppContext | { error: unknown } => {
    try {
      return createAppContext(settings(), deps);
    } catch (error) {
      return { error };
    }
  };
  const context = (): AppContext => {
    built ??= build();
    if ('error' in built) throw built.error;
    return built;
  };
  return {
    functions: [
      ledgerSplitterFunction(context),
      orderProcessorFunction(context),
      getOrderFunction(context),
      postLedgerFunction(context),
      outboxRelayFunction(context),
      outboxGaugesFunction(context),
      outboxHoldRetryFunction(context),
      gapMonitorFunction(context),
    ],
    start(): void {
      built = build();
      if ('error' in built) console.error(`Ledger Convoy cannot run with these app settings: ${describe(built.error)}`);
    },
    async terminate(): Promise<void> {
      const closing = built;
      built = undefined;
      if (closing === undefined || 'error' in closing) return;
      await closing.close().catch((error: unknown) => console.error(`closing the app context failed: ${describe(error)}`));
    },
    context,
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
