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
import { errorMessage } from '../core/index.js';

/** The app: its functions, its hooks, and the context they run with. */
export interface App extends HostedApp {
  /**
   * The context the functions run with: the one `start` built (or, on a host that ran no start hook, one built at
   * first use). Throws the error the settings gave — the same instance every time — and, once terminated, an error
   * saying so: nothing is opened again until the next `start`.
   */
  context(): AppContext;
}

/** What {@link composeApp} takes: the settings, and what a host or a test hands the context. */
export interface ComposeAppOptions extends AppContextDeps {
  /** The app settings, read at each start. @default process.env */
  settings?: () => AppSettings;
}

/** What the app holds between its hooks. */
type AppState =
  | { kind: 'new' }
  | { kind: 'running'; context: AppContext }
  | { kind: 'failed'; error: unknown }
  | { kind: 'terminated' };

/** Composes the app: every function, bound to the context its hooks build and close. */
export function composeApp(options: ComposeAppOptions = {}): App {
  const { settings = () => process.env, ...deps } = options;
  let state: AppState = { kind: 'new' };
  const build = (): AppState => {
    try {
      return { kind: 'running', context: createAppContext(settings(), deps) };
    } catch (error) {
      return { kind: 'failed', error };
    }
  };
  const close = async (): Promise<void> => {
    const closing = state;
    state = { kind: 'terminated' };
    if (closing.kind !== 'running') return;
    await closing.context
      .close()
      .catch((error: unknown) => console.error(`closing the app context failed: ${errorMessage(error)}`));
  };
  const context = (): AppContext => {
    if (state.kind === 'new') state = build();
    if (state.kind === 'running') return state.context;
    if (state.kind === 'failed') throw state.error;
    throw new Error('Ledger Convoy has terminated: no invocation runs until the host starts it again');
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
    async start(): Promise<void> {
      // A start after a start (a host restarting in-process) replaces the context: the old one closes first.
      await close();
      state = build();
      if (state.kind === 'failed')
        console.error(`Ledger Convoy cannot run with these app settings: ${errorMessage(state.error)}`);
    },
    terminate: close,
    context,
  };
}
