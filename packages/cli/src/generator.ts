import {
  DeadLetterReason,
  LEDGER_MAX_ENTRIES,
  ORDER_MAX_TRANSACTIONS,
  exceedsLedgerByteLimit,
  ledgerSchema,
  type Entry,
  type Ledger,
} from 'ledger-convoy/core';
import { CliError } from './errors.js';
import { RUN_ID_PATTERN, entryIdOf, ledgerIdOf, orderIdOf, poisonIdOf, runIdOf } from './ids.js';
import { Prng } from './prng.js';
import { poisonSend } from './poison.js';
import type { ExpectedDeadLetter, PlannedSend } from './runPlan.js';

/** Options of {@link generateRun}; the CLI flags of `send` with the same names (defaults: {@link DEFAULT_GENERATE_OPTIONS}). */
export interface GenerateOptions {
  /** Orders to generate. */
  orders: number;
  /** Entries per order: `OrderCreated`, then transactions, maybe ending with `OrderDeleted`. */
  entries: number;
  /** Ledgers to spread the entries over (empty ones are dropped). */
  ledgers: number;
  /** Ratio (0–1) of entries re-sent in another ledger, and of ledgers re-sent whole. */
  duplicates: number;
  /** Entries whose `entryId` is reused with another body (IdempotencyKeyConflict). */
  conflicts: number;
  /** Poison messages: non-JSON, schema-breaking and invalid ledgers. */
  poison: number;
  /** Orders with a later entry sent in an earlier ledger than the one before it. */
  gaps: number;
  /** PRNG seed (uint32); the same seed gives the same run. */
  seed: number;
  /** Prefix of every generated id. @default `r<seed in base 36>` */
  run?: string;
  /** Probability that an order ends with `OrderDeleted`. @default 0.25 */
  deleteRatio?: number;
}

/** The shape of a run when `send` is not told otherwise; the flags' defaults. */
export const DEFAULT_GENERATE_OPTIONS = {
  orders: 10,
  entries: 5,
  ledgers: 3,
  duplicates: 0,
  conflicts: 0,
  poison: 0,
  gaps: 0,
} as const satisfies Omit<GenerateOptions, 'seed' | 'run' | 'deleteRatio'>;

/** Counts of what a run holds. */
export interface RunCounts {
  orders: number;
  entries: number;
  ledgers: number;
  resentLedgers: number;
  duplicateEntries: number;
  conflicts: number;
  poison: number;
  gaps: number;
}

/** A generated run: the valid entries (the oracle's input), the sends, and the dead letters they should cause. */
export interface GeneratedRun {
  run: string;
  seed: number;
  orderIds: string[];
  /** Every order's valid entries, by order then sequence. */
  entries: Entry[];
  sends: PlannedSend[];
  deadLetters: ExpectedDeadLetter[];
  counts: RunCounts;
}

const CURRENCIES = ['EUR', 'USD', 'GBP', 'CHF'] as const;

/** Generates a run. Pure: the same options give the same run. Throws {@link CliError} on unusable options. */
export function generateRun(options: GenerateOptions): GeneratedRun {
  checkOptions(options);
  const rng = new Prng(options.seed);
  const run = options.run ?? runIdOf(options.seed);
  const { orders: n, entries: m, ledgers: k } = options;

  const conflictOrders = new Set(rng.sample(range(n), options.conflicts));
  const perOrder = range(n).map((i) =>
    orderEntries(rng, orderIdOf(run, i), m, conflictOrders.has(i), options.deleteRatio ?? 0.25),
  );
  const entries = perOrder.flat();

  // Ledger index of every entry: ascending per order, so only the requested gaps send a later entry early.
  const ledgerOf = new Map<Entry, number>();
  for (const list of perOrder)
    sortedInts(rng, list.length, 0, k - 1).forEach((l, i) => ledgerOf.set(list[i] as Entry, l));
  for (const i of rng.sample(range(n), options.gaps)) {
    const list = perOrder[i] as Entry[];
    const s = rng.int(2, m);
    const early = rng.int(0, k - 2);
    sortedInts(rng, s - 1, early + 1, k - 1).forEach((l, j) => ledgerOf.set(list[j] as Entry, l));
    ledgerOf.set(list[s - 1] as Entry, early);
  }

  const buckets: Entry[][] = range(k + 1).map(() => []);
  for (const entry of entries) buckets[ledgerOf.get(entry) as number]?.push(entry);
  // Extra copies go to another ledger than the original's (a ledger never repeats an entryId); with a single
  // ledger they go to an extra one.
  const elsewhere = (entry: Entry): number => {
    if (k === 1) return 1;
    const own = ledgerOf.get(entry) as number;
    const other = rng.int(0, k - 2);
    return other >= own ? other + 1 : other;
  };
  const conflictTargets = perOrder.filter((_, i) => conflictOrders.has(i)).map((list) => list[1] as Entry);
  const duplicated = rng.sample(
    entries.filter((e) => !conflictTargets.includes(e)),
    Math.round(options.duplicates * entries.length),
  );
  for (const entry of duplicated) buckets[elsewhere(entry)]?.push(entry);
  const deadLetters: ExpectedDeadLetter[] = [];
  for (const target of conflictTargets) {
    buckets[elsewhere(target)]?.push(conflictingCopy(rng, target));
    deadLetters.push({
      queue: 'orders',
      id: target.entryId,
      reason: DeadLetterReason.IdempotencyKeyConflict,
      cause: 'conflict',
    });
  }

  const ledgers = buckets
    .filter((b) => b.length > 0)
    .map((b, i) => buildLedger(ledgerIdOf(run, i), interleave(rng, b)));
  const sends: PlannedSend[] = ledgers.map((ledger) => ({ kind: 'ledger', ledger, resend: false }));
  const resent = rng.sample(ledgers, Math.round(options.duplicates * ledgers.length));
  for (const ledger of resent) {
    const at = sends.findIndex((s) => s.kind === 'ledger' && s.ledger === ledger);
    sends.splice(rng.int(at + 1, sends.length), 0, { kind: 'ledger', ledger, resend: true });
  }
  const orderIds = perOrder.map((list) => (list[0] as Entry).orderId);
  for (let p = 0; p < options.poison; p++) {
    const poison = poisonSend(p, poisonIdOf(run, p), rng.pick(orderIds), `${run}-ox`);
    sends.splice(rng.int(0, sends.length), 0, poison.send);
    deadLetters.push(poison.expected);
  }

  return {
    run,
    seed: options.seed,
    orderIds,
    entries,
    sends,
    deadLetters,
    counts: {
      orders: n,
      entries: entries.length,
      ledgers: ledgers.length,
      resentLedgers: resent.length,
      duplicateEntries: duplicated.length,
      conflicts: conflictTargets.length,
      poison: options.poison,
      gaps: options.gaps,
    },
  };
}

/**
 * One order's entries. A conflict order gets `TransactionAdded` at 2 and an amendment of that transaction at 3,
 * so whichever of the two bodies of entry 2 the processor applies first, the final state is the same: the
 * expectation then holds however the broker interleaves the ledgers.
 */
function orderEntries(rng: Prng, orderId: string, m: number, conflict: boolean, deleteRatio: number): Entry[] {
  const entry = (sequence: number) => ({ entryId: entryIdOf(orderId, sequence), orderId, sequence });
  const out: Entry[] = [
    { ...entry(1), type: 'OrderCreated', data: { customerId: `c-${rng.int(1, 999)}`, currency: rng.pick(CURRENCIES) } },
  ];
  const deleting = m >= (conflict ? 4 : 2) && rng.chance(deleteRatio);
  const transactions: string[] = [];
  for (let s = 2; s <= (deleting ? m - 1 : m); s++) {
    const amount = rng.int(-2_000, 20_000);
    const amend = conflict ? s === 3 : transactions.length > 0 && rng.chance(0.4);
    if (amend) {
      const transactionId = conflict ? (transactions[0] as string) : rng.pick(transactions);
      out.push({ ...entry(s), type: 'TransactionAmended', data: { transactionId, amount } });
    } else {
      const transactionId = `t${transactions.length + 1}`;
      transactions.push(transactionId);
      out.push({ ...entry(s), type: 'TransactionAdded', data: { transactionId, amount } });
    }
  }
  if (deleting) out.push({ ...entry(m), type: 'OrderDeleted', data: {} });
  return out;
}

/** The same entry with another amount: same `entryId`, different request hash. */
function conflictingCopy(rng: Prng, entry: Entry): Entry {
  if (entry.type !== 'TransactionAdded')
    throw new Error(`A conflict target must be TransactionAdded, not ${entry.type}`);
  return { ...entry, data: { ...entry.data, amount: entry.data.amount + rng.int(1, 999) } };
}

/** A random interleaving of a ledger's entries that keeps each order's entries in increasing sequence. */
function interleave(rng: Prng, entries: Entry[]): Entry[] {
  const shuffled = rng.shuffle(entries);
  const queues = new Map<string, Entry[]>();
  for (const e of [...entries].sort((a, b) => a.sequence - b.sequence)) {
    const list = queues.get(e.orderId) ?? [];
    list.push(e);
    queues.set(e.orderId, list);
  }
  return shuffled.map((slot) => queues.get(slot.orderId)?.shift() as Entry);
}

function buildLedger(ledgerId: string, entries: Entry[]): Ledger {
  const ledger = { ledgerId, entries };
  if (entries.length > LEDGER_MAX_ENTRIES || exceedsLedgerByteLimit(ledger)) {
    throw new CliError(
      'InvalidOption',
      `Ledger ${ledgerId} would hold ${entries.length} entries, over the 5,000-entry / 256 KB limit.`,
      'Raise --ledgers or lower --orders/--entries.',
    );
  }
  const parsed = ledgerSchema.safeParse(ledger);
  if (!parsed.success) throw new Error(`Generated an invalid ledger ${ledgerId}: ${parsed.error.message}`);
  return parsed.data;
}

function checkOptions(o: GenerateOptions): void {
  const whole = (name: string, value: number, min: number) => {
    if (!Number.isSafeInteger(value) || value < min)
      throw new CliError('InvalidOption', `--${name} must be an integer ≥ ${min}, not ${value}.`);
  };
  whole('orders', o.orders, 1);
  whole('entries', o.entries, 1);
  whole('ledgers', o.ledgers, 1);
  whole('conflicts', o.conflicts, 0);
  whole('poison', o.poison, 0);
  whole('gaps', o.gaps, 0);
  whole('seed', o.seed, 0);
  if (!(o.duplicates >= 0 && o.duplicates <= 1))
    throw new CliError('InvalidOption', `--duplicates is a ratio between 0 and 1, not ${o.duplicates}.`);
  if (o.run !== undefined && !RUN_ID_PATTERN.test(o.run)) {
    throw new CliError('InvalidOption', `--run must be 1–40 characters of letters, digits, "-" and "_".`);
  }
  if (o.conflicts > o.orders)
    throw new CliError(
      'InvalidOption',
      `--conflicts (${o.conflicts}) can be at most --orders (${o.orders}): one per order.`,
    );
  if (o.conflicts > 0 && o.entries < 3) throw new CliError('InvalidOption', '--conflicts needs --entries 3 or more.');
  if (o.gaps > o.orders)
    throw new CliError('InvalidOption', `--gaps (${o.gaps}) can be at most --orders (${o.orders}): one per order.`);
  if (o.gaps > 0 && (o.entries < 2 || o.ledgers < 2))
    throw new CliError('InvalidOption', '--gaps needs --entries 2 and --ledgers 2 or more.');
  // OrderCreated plus at most the bound's transactions: the oracle's valid runs never meet the order bounds (and
  // an order parks fewer entries than it has).
  if (o.entries > ORDER_MAX_TRANSACTIONS + 1) {
    throw new CliError(
      'InvalidOption',
      `--entries can be at most ${ORDER_MAX_TRANSACTIONS + 1}: OrderCreated and ${ORDER_MAX_TRANSACTIONS} transactions, the most an order holds.`,
    );
  }
}

/** `count` random integers in [min, max], ascending. */
function sortedInts(rng: Prng, count: number, min: number, max: number): number[] {
  return range(count)
    .map(() => rng.int(min, max))
    .sort((a, b) => a - b);
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
