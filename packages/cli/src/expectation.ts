import { readFile, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { DeadLetterReason, OrderStatus, type BusinessState } from 'ledger-convoy/core';
import { CliError } from './errors.js';
import type { GeneratedRun, RunCounts } from './generator.js';
import type { ExpectedDeadLetter } from './runPlan.js';
import { PoisonKind } from './runPlan.js';
import { expectedOrders } from './oracle.js';

/** Default path of the expectation file `send` writes and `verify` reads. */
export const DEFAULT_EXPECTATION_FILE = 'convoy-expected.json';

const businessStateSchema = z.strictObject({
  orderId: z.string(),
  status: z.enum([OrderStatus.Pending, OrderStatus.Open, OrderStatus.Deleted]),
  customerId: z.string().nullable(),
  currency: z.string().nullable(),
  lastSequence: z.int(),
  total: z.int(),
  transactions: z.array(z.strictObject({ transactionId: z.string(), amount: z.int() })),
});

const deadLetterSchema = z.object({
  queue: z.enum(['orders', 'ledger']),
  id: z.string(),
  reason: z.enum(Object.values(DeadLetterReason) as [DeadLetterReason, ...DeadLetterReason[]]),
  cause: z.enum(['conflict', ...(Object.values(PoisonKind) as PoisonKind[])]),
});

const countsSchema = z.object({
  orders: z.int(),
  entries: z.int(),
  ledgers: z.int(),
  resentLedgers: z.int(),
  duplicateEntries: z.int(),
  conflicts: z.int(),
  poison: z.int(),
  gaps: z.int(),
});

/** The expectation file: what the system must show once a run has been processed. */
const expectationSchema = z.object({
  version: z.literal(1),
  run: z.string(),
  seed: z.int(),
  createdAt: z.string(),
  counts: countsSchema,
  orders: z.array(businessStateSchema),
  deadLetters: z.array(deadLetterSchema),
});

/** A parsed expectation file. */
export interface Expectation {
  version: 1;
  run: string;
  seed: number;
  createdAt: string;
  counts: RunCounts;
  orders: BusinessState[];
  deadLetters: ExpectedDeadLetter[];
}

/** The expectation of a generated run: the oracle's final states and the generator's dead letters. */
export function expectationOf(run: GeneratedRun, createdAt: Date = new Date()): Expectation {
  return {
    version: 1,
    run: run.run,
    seed: run.seed,
    createdAt: createdAt.toISOString(),
    counts: run.counts,
    orders: expectedOrders(run.entries),
    deadLetters: run.deadLetters,
  };
}

/** Writes the file (pretty JSON, so people can read and diff it). */
export async function writeExpectation(path: string, expectation: Expectation): Promise<void> {
  await writeFile(path, `${JSON.stringify(expectation, null, 2)}\n`, 'utf8');
}

/** Reads and validates the file; errors name the file and what to do. */
export async function readExpectation(path: string): Promise<Expectation> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(
      'File',
      `Cannot read the expectation file ${path}.`,
      'Run `convoy send` first, or pass --file <path>.',
      { cause: error },
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CliError('File', `${path} is not JSON.`, 'Regenerate it with `convoy send`.', { cause: error });
  }
  const parsed = expectationSchema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new CliError(
      'File',
      `${path} is not an expectation file (${first?.path.join('.') ?? ''}: ${first?.message ?? ''}).`,
      'Regenerate it with `convoy send`.',
    );
  }
  return parsed.data;
}
