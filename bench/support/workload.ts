/**
 * The bench's input: seeded ledgers from the CLI's generator (no duplicates, conflicts, poison or gaps), and the
 * exact `orders` messages the splitter makes of them, for the phases that skip the splitter.
 */
import type { ServiceBusClient, ServiceBusMessage } from '@azure/service-bus';
import { generateRun } from '../../cli/generator.js';
import { sendInBatches, toOrderEntryMessage } from '../../src/adapters/serviceBusBatchSender.js';
import { planLedger, type Ledger } from '../../src/core/index.js';

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
  const generated = generateRun({ ...size, duplicates: 0, conflicts: 0, poison: 0, gaps: 0, seed, run, deleteRatio: 0 });
  const ledgers = generated.sends.flatMap((s) => (s.kind === 'ledger' ? [s.ledger] : []));
  const entryMessages = ledgers.flatMap((ledger) => {
    const plan = planLedger(ledger);
    if (!plan.ok) throw new Error(`generated ledger ${ledger.ledgerId} is invalid: ${plan.description}`);
    return plan.messages.map((planned) => toOrderEntryMessage(planned));
  });
  return { run, orderIds: generated.orderIds, ledgers, entryMessages };
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
export async function sendEntryMessages(client: ServiceBusClient, messages: readonly ServiceBusMessage[]): Promise<void> {
  const sender = client.createSender('orders');
  try {
    await sendInBatches(sender, messages);
  } finally {
    await sender.close();
  }
}
