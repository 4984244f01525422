import { randomInt } from 'node:crypto';
import { Command, Option } from 'commander';
import { DEFAULT_GENERATE_OPTIONS, type GenerateOptions } from '../generator.js';
import type { CliIo } from '../io.js';
import { ratio, wholeNumber } from '../options.js';
import { createProgress } from '../progress.js';
import { DEFAULT_SEND_OUT, runSend, type SendTarget } from '../send.js';
import { addConnectionOptions, resolveCliSettings, type ConnectionFlags } from '../settings.js';
import { formatSendReport } from '../summary.js';

// The generator's options under the same names, with what commander adds or leaves unset.
interface SendFlags extends ConnectionFlags, Omit<GenerateOptions, 'seed' | 'deleteRatio'> {
  seed?: number;
  to: SendTarget;
  rate?: number;
  out: string;
  quiet?: boolean;
}

/** `convoy send`. */
export function sendCommand(io: CliIo): Command {
  const command = new Command('send')
    .description('Generate test ledgers, send them, and write the expected final state and dead letters')
    .option('--orders <n>', 'orders to generate', wholeNumber(1), DEFAULT_GENERATE_OPTIONS.orders)
    .option(
      '--entries <m>',
      'entries per order (OrderCreated, transactions, maybe OrderDeleted)',
      wholeNumber(1),
      DEFAULT_GENERATE_OPTIONS.entries,
    )
    .option(
      '--ledgers <k>',
      'ledgers to spread the entries over (interleaved)',
      wholeNumber(1),
      DEFAULT_GENERATE_OPTIONS.ledgers,
    )
    .option(
      '--duplicates <ratio>',
      'ratio of entries re-sent in other ledgers and of ledgers re-sent whole',
      ratio,
      DEFAULT_GENERATE_OPTIONS.duplicates,
    )
    .option(
      '--conflicts <n>',
      'entryIds reused with another body (expect IdempotencyKeyConflict)',
      wholeNumber(),
      DEFAULT_GENERATE_OPTIONS.conflicts,
    )
    .option(
      '--poison <n>',
      'non-JSON and schema-breaking messages (expect SchemaValidationFailed)',
      wholeNumber(),
      DEFAULT_GENERATE_OPTIONS.poison,
    )
    .option(
      '--gaps <n>',
      'orders with a later entry sent in an earlier ledger (parked until the gap fills)',
      wholeNumber(),
      DEFAULT_GENERATE_OPTIONS.gaps,
    )
    .option('--seed <n>', 'PRNG seed, for a reproducible run (default: random)', wholeNumber())
    .option('--run <id>', 'prefix of every generated id (default: derived from the seed)')
    .addOption(
      new Option('--to <target>', 'queue: the ledger queue; http: POST /api/ledgers')
        .choices(['queue', 'http'])
        .default('queue'),
    )
    .option(
      '--rate <entries/s>',
      'pace the sends at this many entries a second (default: as fast as answers come)',
      wholeNumber(1),
    )
    .option('--out <file>', 'where to write the expectation', DEFAULT_SEND_OUT)
    .option('-q, --quiet', 'no progress bar')
    .addHelpText(
      'after',
      '\nExample:\n  convoy send --orders 50 --entries 8 --ledgers 5 --duplicates 0.1 --conflicts 2 --poison 4 --gaps 3 --seed 7',
    );
  return addConnectionOptions(command).action(async (flags: SendFlags) => {
    const report = await runSend({
      ...flags,
      seed: flags.seed ?? randomInt(0, 2 ** 32 - 1),
      settings: resolveCliSettings(flags),
      progress: createProgress({ quiet: flags.quiet }),
    });
    io.out(formatSendReport(report));
  });
}
