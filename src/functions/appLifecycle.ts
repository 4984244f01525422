/**
 * App-wide lifecycle hooks: on a graceful shutdown the shared senders and clients close (and with them their AMQP
 * links and sockets), so in-flight sends finish and the broker sees a clean detach rather than a dropped connection.
 */
import { closeAppContext } from './appContext.js';
import { register } from './register.js';

/** The `appTerminate` hook: closes the app context. Never rejects — shutdown must go on. */
export async function closeOnTerminate(): Promise<void> {
  await closeAppContext().catch((error: unknown) => {
    console.error(`closing the app context failed: ${error instanceof Error ? error.message : String(error)}`);
  });
}

register.appTerminate(closeOnTerminate);
