/**
 * The bench's input: seeded ledgers from the CLI's generator (no duplicates, conflicts, poison or gaps), and the
 * exact `orders` messages the splitter makes of them, for the phases that skip the splitter.
 */
import type { ServiceBusClient, ServiceBusMessage } from '@azure/service-bus';
import { entryIdOf, generateRun, ledgerIdOf, orderIdOf } from '@ledger-convoy/cli';
import { createHash } from 'node:crypto';
import { sendInBatches, serviceBusMessageOf } from '../../src/adapters/serviceBusBatchSender.js';
import { ledgerSchema, planLedger, type Ledger } from '../../src/core/index.js';

/** The size of one phase's input. */
export interface WorkloadSize {
  orders: number;
  /** Entries per order: `OrderCreated` then transactions (no `OrderDeleted`, so every order ends open). */
  entries: number;
  /** Ledgers the entries are spread over, interleaved. */
  ledgers: number;
}

/** One phase's input: distinct ids per phase (`run` prefixes them), so phases never see each other's orders. */
export interface Workload {
  run: string;
  orderIds: string[];
  ledgers: Ledger[];
  /** The `orders` messages of every ledger, in ledger order, as the splitter sends them. */
  entryMessages: ServiceBusMessage[];
}

/** Generates a phase's input; the same run id and seed give the same ledgers. */
export function workload(run: string, size: WorkloadSize, seed: number): Workload {
  const generated = cleanRun(run, size, seed);
  const ledgers = generated.sends.flatMap((s) => (s.kind === 'ledger' ? [s.ledger] : []));
  const entryMessages = ledgers.flatMap(messagesOf);
  return { run, orderIds: generated.orderIds, ledgers, entryMessages };
}

/** The CLI generator's run of `size`, with no duplicates, conflicts, poison, gaps or deletions. */
function cleanRun(run: string, size: WorkloadSize, seed: number) {
  return generateRun({ ...size, duplicates: 0, conflicts: 0, poison: 0, gaps: 0, seed, run, deleteRatio: 0 });
}

/** Sends the ledgers to the `ledger` queue, one message each (`messageId = ledgerId`), as `convoy send` does. */
export async function sendLedgers(client: ServiceBusClient, ledgers: readonly Ledger[]): Promise<void> {
  const sender = client.createSender('ledger');
  try {
    await sendInBatches(
      sender,
      ledgers.map((ledger) => ({ messageId: ledger.ledgerId, contentType: 'application/json', body: ledger })),
    );
  } finally {
    await sender.close();
  }
}

/** Sends `orders` messages in the given order, in as few batches as fit (the splitter's way). */
export async function sendEntryMessages(
  client: ServiceBusClient,
  messages: readonly ServiceBusMessage[],
): Promise<void> {
  const sender = client.createSender('orders');
  try {
    await sendInBatches(sender, messages);
  } finally {
    await sender.close();
  }
}

/** A steady stream for the latency phase: `orders` orders whose entries are spread over ledgers of equal size. */
export interface SteadyWorkload {
  orderIds: string[];
  /** In send order; ledger i holds the next entry of each of `entriesPerLedger` consecutive orders (round robin). */
  ledgers: Ledger[];
  /** Entries of each order (every order gets the same number). */
  perOrder: number;
}

/**
 * Generates `ledgerCount` ledgers of `entriesPerLedger` entries over `orders` orders: the orders take turns, so
 * each order's entries go out in sequence, one every `orders / entriesPerLedger` ledgers.
 */
export function steadyWorkload(
  run: string,
  shape: { orders: number; entriesPerLedger: number; ledgerCount: number },
  seed: number,
): SteadyWorkload {
  const total = shape.ledgerCount * shape.entriesPerLedger;
  if (shape.orders % shape.entriesPerLedger !== 0 || total % shape.orders !== 0) {
    throw new Error(
      `steady workload: ${shape.orders} orders must split evenly into ledgers of ${shape.entriesPerLedger} and ${total} entries`,
    );
  }
  const perOrder = total / shape.orders;
  // Only the entries are used (generateRun lists them by sequence, order after order); its own ledgers are
  // dropped, and as many of them as ours keep each under the ledger size limit.
  const generated = cleanRun(run, { orders: shape.orders, entries: perOrder, ledgers: shape.ledgerCount }, seed);
  const entryAt = (flat: number) =>
    generated.entries[(flat % shape.orders) * perOrder + Math.floor(flat / shape.orders)];
  const ledgers = Array.from({ length: shape.ledgerCount }, (_, i) =>
    ledgerSchema.parse({
      ledgerId: ledgerIdOf(run, i),
      entries: Array.from({ length: shape.entriesPerLedger }, (_, k) => entryAt(i * shape.entriesPerLedger + k)),
    }),
  );
  return { orderIds: generated.orderIds, ledgers, perOrder };
}

/** One long order, in ledgers sent one after another. */
export interface LongOrderWorkload {
  orderId: string;
  /** Consecutive slices of the order, `perLedger` entries each, in sequence order. */
  ledgers: Ledger[];
  /** The `orders` messages of each ledger, as the splitter sends them. */
  entryMessages: ServiceBusMessage[][];
}

/**
 * One order of `entries` entries: `OrderCreated`, then `TransactionAdded` only, each with a 40-character transaction
 * id (hex of SHA-1 over the run, the seed and the sequence) and a seeded amount; cut into ledgers of `perLedger`.
 */
export function longOrderWorkload(
  run: string,
  shape: { entries: number; perLedger: number },
  seed: number,
): LongOrderWorkload {
  if (shape.entries % shape.perLedger !== 0)
    throw new Error(`long order: ${shape.entries} entries must split evenly into ledgers of ${shape.perLedger}`);
  const orderId = orderIdOf(run, 0);
  const entries = Array.from({ length: shape.entries }, (_, i) => {
    const sequence = i + 1;
    const base = { entryId: entryIdOf(orderId, sequence), orderId, sequence };
    if (sequence === 1) return { ...base, type: 'OrderCreated', data: { customerId: `c-${seed}`, currency: 'EUR' } };
    const transactionId = createHash('sha1').update(`${run}:${seed}:${sequence}`).digest('hex');
    // An amount in [-2,000, 20,000) from the same digest, so the order's total stays a safe integer.
    const amount = (parseInt(transactionId.slice(0, 8), 16) % 22_000) - 2_000;
    return { ...base, type: 'TransactionAdded', data: { transactionId, amount } };
  });
  const ledgers = Array.from({ length: shape.entries / shape.perLedger }, (_, i) =>
    ledgerSchema.parse({
      ledgerId: ledgerIdOf(run, i),
      entries: entries.slice(i * shape.perLedger, (i + 1) * shape.perLedger),
    }),
  );
  return { orderId, ledgers, entryMessages: ledgers.map(messagesOf) };
}

function messagesOf(ledger: Ledger): ServiceBusMessage[] {
  const plan = planLedger(ledger);
  if (!plan.ok) throw new Error(`ledger ${ledger.ledgerId} is invalid: ${plan.description}`);
  return plan.messages.map((planned) => serviceBusMessageOf(planned, undefined));
}
