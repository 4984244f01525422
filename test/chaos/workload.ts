import type { ServiceBusClient, ServiceBusMessage, ServiceBusSender } from '@azure/service-bus';
import { type Entry } from '../../src/core/index.js';
import { entryMessageId, requestHash } from '../../src/core/hash.js';
import { generateRun, type GeneratedRun } from '@ledger-convoy/cli';
import { Prng } from '@ledger-convoy/cli';
import type { ChaosOptions } from './chaosOptions.js';

/** One message the producer sends. */
export interface ChaosSend {
  queue: 'ledger' | 'orders';
  /** What it is, for the counts. */
  kind: 'ledger' | 'resentLedger' | 'ledgerUnderNewId' | 'poison' | 'directDuplicate';
  message: ServiceBusMessage;
}

/** The generated run plus the sends that carry it. */
export interface Workload {
  run: GeneratedRun;
  /** The other bodies sent under a valid entry's `entryId` (the generator's conflicts). */
  reusedKeys: Entry[];
  sends: ChaosSend[];
  counts: Record<ChaosSend['kind'], number>;
}

/**
 * The generator's run (the oracle's input and the expected dead letters), its sends, and extra copies of entries
 * sent straight to `orders` — half with the splitter's own message id (broker duplicate detection may drop them),
 * half with another one (only the inbox can). Entries whose `entryId` is reused on purpose are never copied: a copy
 * of the losing body would be a second, legitimate, dead letter.
 */
export function buildWorkload(options: ChaosOptions): Workload {
  const perOrder = Math.max(2, Math.round(options.entries / options.orders));
  const run = generateRun({
    seed: options.seed,
    orders: options.orders,
    entries: perOrder,
    // About 120 entries per ledger: far below the 256 KB limit, and enough ledgers to interleave with the faults.
    ledgers: Math.max(4, Math.ceil((perOrder * options.orders) / 120)),
    duplicates: options.duplicateRatio,
    conflicts: options.conflicts,
    poison: options.poison,
    gaps: options.gaps,
  });
  const sends: ChaosSend[] = run.sends.map((send) => {
    if (send.kind === 'ledger') {
      return {
        queue: 'ledger',
        kind: send.resend ? 'resentLedger' : 'ledger',
        message: { messageId: send.ledger.ledgerId, contentType: 'application/json', body: send.ledger },
      };
    }
    return {
      queue: send.queue,
      kind: 'poison',
      message: {
        messageId: send.messageId,
        contentType: 'application/json',
        ...(send.sessionId !== undefined && { sessionId: send.sessionId }),
        body: send.body,
      },
    };
  });

  const rng = new Prng(options.seed ^ 0xd0_b1e5);
  // Ledgers sent again under another message id (a producer that regenerates ids on retry): the broker's duplicate
  // detection on `ledger` cannot drop them, so the splitter fans them out again.
  const ledgers = sends.filter((s) => s.kind === 'ledger');
  for (const [i, original] of rng
    .sample(ledgers, Math.max(1, Math.round(options.duplicateRatio * ledgers.length)))
    .entries()) {
    const copy: ChaosSend = {
      ...original,
      kind: 'ledgerUnderNewId',
      message: { ...original.message, messageId: `${String(original.message.messageId)}.again${i}` },
    };
    sends.splice(rng.int(sends.indexOf(original) + 1, sends.length), 0, copy);
  }
  const reused = new Set(run.deadLetters.map((d) => d.id));
  const candidates = run.entries.filter((e) => !reused.has(e.entryId));
  const copies = rng.sample(candidates, Math.round(options.directDuplicateRatio * run.entries.length));
  copies.forEach((entry, i) => {
    const send: ChaosSend = {
      queue: 'orders',
      kind: 'directDuplicate',
      message: directCopy(entry, i % 2 === 0 ? undefined : `${entry.entryId}.copy${i}`, run.run),
    };
    sends.splice(rng.int(0, sends.length), 0, send);
  });

  const counts = { ledger: 0, resentLedger: 0, ledgerUnderNewId: 0, poison: 0, directDuplicate: 0 };
  for (const send of sends) counts[send.kind]++;
  return { run, reusedKeys: reusedKeysOf(run), sends, counts };
}

/** Entries in the ledgers whose `entryId` belongs to a valid entry with another body. */
function reusedKeysOf(run: GeneratedRun): Entry[] {
  const valid = new Map(run.entries.map((e) => [e.entryId, requestHash(e)]));
  const others = new Map<string, Entry>();
  for (const send of run.sends) {
    if (send.kind !== 'ledger') continue;
    for (const entry of send.ledger.entries) {
      const hash = valid.get(entry.entryId);
      if (hash !== undefined && hash !== requestHash(entry))
        others.set(`${entry.entryId}:${requestHash(entry)}`, entry);
    }
  }
  return [...others.values()];
}

/** An entry as an `orders` message, like the splitter's; `messageId` defaults to the splitter's own. */
function directCopy(entry: Entry, messageId: string | undefined, run: string): ServiceBusMessage {
  return {
    messageId: messageId ?? entryMessageId(entry.entryId, requestHash(entry)),
    sessionId: entry.orderId,
    correlationId: `${run}-direct`,
    contentType: 'application/json',
    applicationProperties: { sequence: entry.sequence, type: entry.type },
    body: entry,
  };
}

/** Sends every message in order, paced over `spreadMs`, retrying each until it is accepted (the broker may be down). */
export async function produce(
  client: ServiceBusClient,
  sends: readonly ChaosSend[],
  spreadMs: number,
  onRetry: (error: unknown) => void,
): Promise<void> {
  const senders = new Map<string, ServiceBusSender>();
  const senderOf = (queue: string): ServiceBusSender => {
    let sender = senders.get(queue);
    if (!sender) senders.set(queue, (sender = client.createSender(queue)));
    return sender;
  };
  const started = Date.now();
  try {
    for (let i = 0; i < sends.length; i++) {
      const send = sends[i] as ChaosSend;
      const due = started + (spreadMs * i) / sends.length;
      if (due > Date.now()) await sleep(due - Date.now());
      for (let attempt = 0; ; attempt++) {
        try {
          await senderOf(send.queue).sendMessages(send.message);
          break;
        } catch (error) {
          // A send may have been stored before its acknowledgement was lost: the re-send is a duplicate the
          // broker's duplicate detection (or the inbox) must absorb.
          if (Date.now() - started > spreadMs + 180_000) throw error;
          onRetry(error);
          await sleep(Math.min(2_000, 200 * 2 ** Math.min(attempt, 4)));
        }
      }
    }
  } finally {
    await Promise.allSettled([...senders.values()].map((s) => s.close()));
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
