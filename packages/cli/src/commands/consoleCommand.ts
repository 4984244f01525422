import { Command } from 'commander';
import { withCosmosFlag } from '../cosmos.js';
import type { CliIo } from '../io.js';
import { wholeNumber } from '../options.js';
import { addConnectionOptions, requireServiceBus, resolveCliSettings, type ConnectionFlags } from '../settings.js';

interface ConsoleFlags extends ConnectionFlags {
  port: number;
  host: string;
  allowWrite?: boolean;
  admin?: string;
  cosmos?: string;
}

/**
 * `convoy console`: the operator console for whatever the CLI is configured against, until Ctrl-C. `stop` ends it
 * instead of a signal (tests).
 */
export function consoleCommand(io: CliIo, stop?: () => Promise<void>): Command {
  const command = new Command('console')
    .description(
      'Serve the operator console in the browser: backlogs, dead letters, orders, outbox (read-only against Azure unless --allow-write)',
    )
    .option('--port <port>', 'port to listen on', wholeNumber(0), 7072)
    .option(
      '--host <host>',
      'interface to listen on; anything but loopback requires the token printed at start',
      '127.0.0.1',
    )
    .option('--allow-write', 'allow resubmit, purge and retry against a deployed (non-emulator) system')
    .option(
      '--admin <url>',
      "the Service Bus emulator's stats URL (else $CONVOY_ADMIN, else http://<emulator host>:5300/stats)",
    )
    .option('--cosmos <connection>', 'Cosmos DB connection string (else $CosmosConnection, else local.settings.json)');
  return addConnectionOptions(command).action(async (flags: ConsoleFlags) => {
    const resolved = resolveCliSettings(flags);
    const settings = { ...resolved, app: withCosmosFlag(resolved.app, flags.cosmos) };
    requireServiceBus(settings);
    // Loaded here: the server and its SDK clients are start-up time every other command would pay.
    const { startConsole } = await import('../console/consoleServer.js');
    const { consoleTarget } = await import('../console/consoleTarget.js');
    const target = consoleTarget(settings, { admin: flags.admin });
    const running = await startConsole({ target, port: flags.port, host: flags.host, allowWrite: flags.allowWrite });
    io.out(`Operator console  ${running.url}`);
    if (running.token)
      io.out('  (the token in this URL is shown once: open it, then the browser keeps a session cookie)');
    io.out(`  target: ${target.label}${running.writable ? '' : ' · read-only (--allow-write to change it)'}`);
    await (stop ?? untilSignal)();
    await running.close();
  });
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
  });
}
