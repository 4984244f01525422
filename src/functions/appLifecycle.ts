/**
 * App-wide lifecycle hooks. At start the app context and the outbox relay's runtime are built from the app settings,
 * so an unusable setting is logged once, by name, when the host starts — and every invocation then fails with that
 * same error (a throw at import would leave the host with no functions at all, and nothing to say why). On a graceful
 * shutdown the shared senders and clients close (and with them their AMQP links and sockets), so in-flight sends
 * finish and the broker sees a clean detach rather than a dropped connection.
 */
import { appContext, closeAppContext } from './appContext.js';
import { outboxRuntime } from './outboxRuntime.js';
import { register } from './register.js';

/** The `appStart` hook: builds and validates everything the functions share. Never rejects — the host must start. @internal */
export function startApp(): void {
  try {
    outboxRuntime(appContext());
  } catch (error) {
    console.error(`Ledger Convoy cannot run with these app settings: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The `appTerminate` hook: closes the app context. Never rejects — shutdown must go on. @internal */
export async function closeOnTerminate(): Promise<void> {
  await closeAppContext().catch((error: unknown) => {
    console.error(`closing the app context failed: ${error instanceof Error ? error.message : String(error)}`);
  });
}

register.appStart(startApp);
register.appTerminate(closeOnTerminate);
