/**
 * A bench's command line: `--help` prints its usage, and a flag it does not know, or a value that is not a whole
 * number where one is wanted, ends it with that usage and exit code 2 before anything starts.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/** What `parseArgs` makes of `options`. */
type Values<T extends Options> = ReturnType<typeof parseArgs<{ options: T }>>['values'];

/** The values of `options` from the process's arguments, or the usage and an exit. */
export function benchArgs<const T extends Options>(usage: string, options: T): Values<T> {
  let values: Record<string, unknown>;
  try {
    values = parseArgs({ options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true }).values;
  } catch (error) {
    refuse(usage, error instanceof Error ? error.message : String(error));
  }
  if (values.help === true) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return values as Values<T>;
}

/** `text` of flag `--name` as a whole number ≥ `min`, or the usage and an exit. */
export function wholeArg(usage: string, text: unknown, min: number, name: string): number {
  const n = Number(text);
  if (typeof text !== 'string' || !Number.isSafeInteger(n) || n < min)
    refuse(usage, `--${name}: expected a whole number ≥ ${min}, got "${String(text)}"`);
  return n;
}

function refuse(usage: string, why: string): never {
  process.stderr.write(`${why}\n\n${usage}\n`);
  process.exit(2);
}
