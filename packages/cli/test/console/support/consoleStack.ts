import { createServer } from 'node:net';
import type { RunningConsole } from '../../../src/console/consoleServer.js';
import { startLocalConsole, type LocalConsoleOptions } from '@ledger-convoy/local-host';
import { startE2eStack, type E2eStack } from '../../../../../test/e2e/support/e2eStack.js';

/** The whole local stack in-process with the console `npm start` serves, on free ports. */
export interface ConsoleStack extends E2eStack {
  console: RunningConsole;
}

/** A port free right now (the emulator's admin view takes a port number, 0 turning it off). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Starts the stack (with the emulator's admin view, for sessions, on a free port; its HTTPS management port off, so
 * files run side by side) and its console, sampling every 500 ms.
 */
export async function startConsoleStack(consoleOptions: LocalConsoleOptions = {}): Promise<ConsoleStack> {
  const stack = await startE2eStack({ serviceBusAdminPort: await freePort(), serviceBusAdminHttpsPort: 0 });
  let running: RunningConsole;
  try {
    running = await startLocalConsole(stack.host, { port: 0, sampleIntervalMs: 500, ...consoleOptions });
  } catch (error) {
    await stack.close();
    throw error;
  }
  return {
    ...stack,
    console: running,
    async close() {
      await running.close();
      await stack.close();
    },
  };
}
