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
  /** @default silent */
  progress?: Progress;
}

/** What {@link runSend} did. */
export interface SendReport {
  expectation: Expectation;
  /** Messages sent (ledgers, re-sent ledgers, poison). */
  sent: number;
  out: string | undefined;
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
  try {
    const deliver = deliverer(options.to, client, api);
    for (const send of run.sends) {
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
  return { expectation, sent, out: options.out };
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
