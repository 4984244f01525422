import { setTimeout as sleep } from 'node:timers/promises';
import type { ServiceBusClient } from '@azure/service-bus';
import { expectationOf, writeExpectation, DEFAULT_EXPECTATION_FILE, type Expectation } from './expectation.js';
import { generateRun, type GenerateOptions } from './generator.js';
import type { PlannedSend } from './runPlan.js';
import { FunctionApi } from './httpApi.js';
import { silentProgress, type Progress } from './progress.js';
import { openServiceBus, asCliError } from './serviceBus.js';
import type { CliSettings } from './settings.js';
import { QueueName } from 'ledger-convoy/core';

/** Where `send` delivers ledgers. */
export type SendTarget = 'queue' | 'http';

/** Options of {@link runSend}. */
export interface SendOptions extends GenerateOptions {
  /** `queue`: the `ledger` queue; `http`: `POST /api/ledgers`. Poison always goes to Service Bus. @default 'queue' */
  to: SendTarget;
  /** Expectation file to write; `undefined` writes none. @default 'convoy-expected.json' (CLI) */
  out: string | undefined;
  settings: CliSettings;
  /**
   * Entries a second: each send leaves no earlier than its place in a steady schedule counted from the first
   * ({@link sendSchedule}), so a late one never shifts the rest. Sends stay one at a time, in their planned order; a
   * slow answer makes the next ones late (the report's `maxLagMs`). @default undefined (as fast as answers come)
   */
  rate?: number;
  /** @default silent */
  progress?: Progress;
}

/** What {@link runSend} did. */
export interface SendReport {
  expectation: Expectation;
  /** Messages sent (ledgers, re-sent ledgers, poison). */
  sent: number;
  out: string | undefined;
  /** When each send started (`Date.now()`), in the planned order. */
  startedAt: number[];
  /** The latest a send started after its scheduled time; 0 without a `rate`. */
  maxLagMs: number;
}

/**
 * When each of `sends` is due, in ms after the first, at `entriesPerSecond`: a ledger's entries (a poison message
 * counts as one) take their share of a second, so a ledger is due once those before it have had their time.
 */
export function sendSchedule(sends: readonly PlannedSend[], entriesPerSecond: number): number[] {
  if (!(entriesPerSecond > 0))
    throw new RangeError(`sendSchedule: entriesPerSecond must be > 0, got ${entriesPerSecond}`);
  let entriesBefore = 0;
  return sends.map((send) => {
    const due = (entriesBefore * 1000) / entriesPerSecond;
    entriesBefore += send.kind === 'ledger' ? send.ledger.entries.length : 1;
    return due;
  });
}

/**
 * Generates a run, sends it in its planned order, then writes the expected final state and dead letters.
 * Callable in-process (the end-to-end test does) as well as from the CLI.
 */
export async function runSend(options: SendOptions): Promise<SendReport> {
  const run = generateRun(options);
  const expectation = expectationOf(run);
  const needsServiceBus = options.to === 'queue' || run.sends.some((s) => s.kind === 'poison');
  const client = needsServiceBus ? await openServiceBus(options.settings) : undefined;
  const api = new FunctionApi(options.settings);
  const progress = options.progress ?? silentProgress;
  progress.start(run.sends.length, `send ${run.run}`);
  let sent = 0;
  const startedAt: number[] = [];
  let maxLagMs = 0;
  const schedule = options.rate === undefined ? undefined : sendSchedule(run.sends, options.rate);
  try {
    const deliver = deliverer(options.to, client, api);
    for (const [i, send] of run.sends.entries()) {
      if (schedule !== undefined) {
        // Counted from the first send's start; the wall clock decides, so no send starts before its time.
        const due = (startedAt[0] ?? Date.now()) + (schedule[i] as number);
        while (Date.now() < due) await sleep(due - Date.now());
        maxLagMs = Math.max(maxLagMs, Date.now() - due);
      }
      startedAt.push(Date.now());
      await deliver(send);
      progress.update(++sent);
    }
    await deliver.close();
  } catch (error) {
    throw asCliError(error);
  } finally {
    progress.stop();
    await client?.close();
  }
  if (options.out !== undefined) await writeExpectation(options.out, expectation);
  return { expectation, sent, out: options.out, startedAt, maxLagMs };
}

/** Default `--out`. */
export const DEFAULT_SEND_OUT = DEFAULT_EXPECTATION_FILE;

type Deliver = ((send: PlannedSend) => Promise<void>) & { close(): Promise<void> };

function deliverer(to: SendTarget, client: ServiceBusClient | undefined, api: FunctionApi): Deliver {
  const ledgerSender = client?.createSender(QueueName.Ledger);
  const ordersSender = client?.createSender(QueueName.Orders);
  const deliver = async (send: PlannedSend): Promise<void> => {
    if (send.kind === 'ledger') {
      if (to === 'http') return api.postLedger(send.ledger);
      // messageId = ledgerId: a re-sent ledger is dropped by the queue's duplicate detection (transport only).
      return ledgerSender?.sendMessages({
        messageId: send.ledger.ledgerId,
        contentType: 'application/json',
        body: send.ledger,
      });
    }
    const sender = send.queue === QueueName.Ledger ? ledgerSender : ordersSender;
    return sender?.sendMessages({
      messageId: send.messageId,
      contentType: 'application/json',
      ...(send.sessionId !== undefined ? { sessionId: send.sessionId } : {}),
      body: send.body,
    });
  };
  return Object.assign(deliver, {
    async close() {
      await Promise.all([ledgerSender?.close(), ordersSender?.close()]);
    },
  });
}
