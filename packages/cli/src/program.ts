import { Command } from 'commander';
import { consoleCommand } from './commands/consoleCommand.js';
import { dlqCommand } from './commands/dlqCommand.js';
import { outboxCommand } from './commands/outboxRetry.js';
import { sendCommand } from './commands/sendCommand.js';
import { sessionsCommand } from './commands/sessionsCommand.js';
import { verifyCommand } from './commands/verifyCommand.js';
import { isCliError } from './errors.js';
import type { CliIo } from './io.js';

/** The `convoy` program. */
function buildProgram(io: CliIo): Command {
  const program = new Command('convoy')
    .description('Ledger Convoy: send test ledgers, verify the outcome, repair dead letters, watch sessions')
    .showHelpAfterError('(add --help for usage)')
    .addHelpText(
      'after',
      '\nConnections: flags, then the environment (ServiceBusConnection, CONVOY_HTTP, CONVOY_FUNCTION_KEY, CONVOY_ADMIN),\nthen local.settings.json Values. Quick start: `npm start`, then `convoy send` and `convoy verify`.',
    );
  for (const command of [
    sendCommand(io),
    verifyCommand(io),
    dlqCommand(io),
    sessionsCommand(io),
    outboxCommand(io),
    consoleCommand(io),
  ])
    program.addCommand(command);
  routeOutput(program, io);
  return program;
}

/** Every command, nested ones included, writes through `io` and throws instead of calling `process.exit`. */
function routeOutput(command: Command, io: CliIo): void {
  command
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) });
  for (const sub of command.commands) routeOutput(sub, io);
}

/**
 * Runs the CLI on `argv` (without node and script) and resolves with the exit code: 0 ok, 1 a verification
 * mismatch or missing ids, 2 an error (printed with what to do).
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return io.exitCode;
  } catch (error) {
    const code = (error as { code?: string }).code;
    // commander reports --help and --version as "errors" with exit code 0.
    if (typeof code === 'string' && code.startsWith('commander.'))
      return (error as { exitCode?: number }).exitCode === 0 ? 0 : 2;
    if (isCliError(error)) {
      io.err(`error: ${error.message}`);
      if (error.hint) io.err(`  → ${error.hint}`);
    } else {
      io.err(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
    return 2;
  }
}
