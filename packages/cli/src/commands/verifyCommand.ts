import { Command } from 'commander';
import { DEFAULT_EXPECTATION_FILE, readExpectation } from '../expectation.js';
import type { CliIo } from '../io.js';
import { wholeNumber } from '../options.js';
import { createProgress } from '../progress.js';
import { addConnectionOptions, resolveCliSettings, type ConnectionFlags } from '../settings.js';
import { formatVerifyReport } from '../summary.js';
import { runVerify } from '../verify.js';

interface VerifyFlags extends ConnectionFlags {
  file: string;
  timeout: number;
  quiet?: boolean;
  json?: boolean;
}

/** `convoy verify`: exit code 1 on any mismatch. */
export function verifyCommand(io: CliIo): Command {
  const command = new Command('verify')
    .description('Wait until the orders and dead letters match the expectation file; exit code 1 if they do not')
    .option('--file <file>', 'expectation file written by send', DEFAULT_EXPECTATION_FILE)
    .option('--timeout <seconds>', 'give up after this long', wholeNumber(1), 120)
    .option('--json', 'print the comparison as JSON')
    .option('-q, --quiet', 'no progress bar');
  return addConnectionOptions(command).action(async (flags: VerifyFlags) => {
    const expectation = await readExpectation(flags.file);
    const report = await runVerify({
      expectation,
      settings: resolveCliSettings(flags),
      timeoutMs: flags.timeout * 1000,
      progress: createProgress({ quiet: flags.quiet }),
    });
    io.out(flags.json ? JSON.stringify(report, null, 2) : formatVerifyReport(report));
    if (!report.ok) io.exitCode = 1;
  });
}
