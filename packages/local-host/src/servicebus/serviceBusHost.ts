import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { ThroughputSummary } from '../logging/throughputSummary.js';
import type { ServiceBusHostOptions } from '../config/serviceBusHostOptions.js';
import { bundledWorkerScript } from '../emulatorThread.js';
import type { ServiceBusRegistration } from '../registrations.js';
import type { AppSettings } from '../config/appSettings.js';
import type { Settle } from './messageActions.js';
import { processMessage } from './processMessage.js';
import { resolveServiceBusConnection } from './serviceBusClients.js';
import type { ServiceBusConnection } from './serviceBusClients.js';
import { triggerEntity, triggerSource } from './triggerEntity.js';
import { fromWireError } from './triggerProtocol.js';
import type {
  TriggerHostMessage,
  TriggerLogLevel,
  TriggerThreadData,
  TriggerThreadMessage,
  WireError,
} from './triggerProtocol.js';
import { fromWireMessage } from './wireMessage.js';

/** Options of {@link startServiceBusHost}. */
interface ServiceBusHostStartOptions {
  /** Queue and subscription triggers. */
  functions: readonly ServiceBusRegistration[];
  settings: AppSettings;
  hostOptions: ServiceBusHostOptions;
  logger: Logger;
  /** Counts each invocation's outcome for the periodic summary line. @default none */
  summary?: ThroughputSummary;
}

/** The running Service Bus triggers. */
export interface ServiceBusHost {
  /** Drains every trigger (in-flight messages finish and settle), then closes the clients. */
  close(): Promise<void>;
}

const LOG_LEVELS: readonly TriggerLogLevel[] = ['debug', 'warn', 'error'];

/**
 * Starts the Service Bus triggers, one listener per function, in a thread of their own (triggerWorker.ts), as the
 * Functions host runs them outside the Node worker: this thread keeps the functions and invokes one whenever the
 * trigger thread hands it a message, and forwards the function's settlement actions to it.
 */
export function startServiceBusHost(options: ServiceBusHostStartOptions): ServiceBusHost {
  const { functions, logger } = options;
  if (functions.length === 0) return { close: () => Promise.resolve() };
  // Resolve every connection before starting anything, so a missing setting leaves nothing running.
  const connections: Record<string, ServiceBusConnection> = {};
  for (const registration of functions) {
    const { connection } = registration.options;
    connections[connection] ??= resolveServiceBusConnection(connection, options.settings);
  }
  const workerData: TriggerThreadData = {
    triggers: functions.map(triggerSource),
    connections,
    hostOptions: options.hostOptions,
    logLevels: LOG_LEVELS.filter((level) => logger.isLevelEnabled(level)),
  };
  // Under `npm start` the launcher's bundle; elsewhere (vitest, the benches) the TypeScript sources through tsx.
  const script = bundledWorkerScript('triggerWorker') ?? new URL('../triggerWorkerBoot.mjs', import.meta.url);
  const worker = new Worker(script, { workerData });
  const post = (message: TriggerHostMessage): void => worker.postMessage(message);
  let exited = false;
  let closed: ((error: WireError | undefined) => void) | undefined;
  const logs = functions.map((registration) =>
    logger.child({ function: registration.name, queue: triggerEntity(registration) }),
  );

  // Settlement requests awaiting the trigger thread's answer, by request.
  const answers = new Map<number, { resolve(lockedUntil: Date | undefined): void; reject(error: Error): void }>();
  let requests = 0;
  const settleFor =
    (invocation: number): Settle =>
    (settlement) =>
      new Promise((resolve, reject) => {
        if (exited) return reject(new Error('the Service Bus trigger thread has stopped'));
        const request = (requests += 1);
        answers.set(request, { resolve, reject });
        post({ kind: 'settle', request, invocation, settlement });
      });

  const invoke = async (event: Extract<TriggerThreadMessage, { kind: 'invoke' }>): Promise<void> => {
    const registration = functions[event.trigger]!;
    const message = fromWireMessage(event.message);
    let releaseSession = false;
    try {
      await processMessage({
        registration,
        message,
        settle: settleFor(event.invocation),
        session: event.session
          ? {
              sessionId: String(message.sessionId),
              requestRelease: () => {
                releaseSession = true;
              },
            }
          : undefined,
        autoCompleteMessages: options.hostOptions.autoCompleteMessages,
        logger,
        summary: options.summary,
      });
    } finally {
      if (!exited) post({ kind: 'invoked', invocation: event.invocation, releaseSession });
    }
  };

  const exit = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      exited = true;
      for (const { reject } of answers.values()) reject(new Error('the Service Bus trigger thread has stopped'));
      answers.clear();
      resolve();
    }),
  );
  // A permanent listener: an unhandled 'error' on a Worker would crash the host without draining.
  worker.on('error', (error) => logger.error({ err: error }, 'the Service Bus trigger thread failed'));
  worker.on('message', (event: TriggerThreadMessage) => {
    if (event.kind === 'invoke') {
      void invoke(event).catch((error: unknown) => logger.error({ err: error }, 'invoking a function failed'));
    } else if (event.kind === 'settled') {
      const answer = answers.get(event.request);
      answers.delete(event.request);
      if (event.error) answer?.reject(fromWireError(event.error));
      else answer?.resolve(event.lockedUntil);
    } else if (event.kind === 'log') {
      const { err, ...fields } = event.fields;
      logs[event.trigger]![event.level](
        err === undefined ? fields : { ...fields, err: fromWireError(err as WireError) },
        event.msg,
      );
    } else closed?.(event.error);
  });

  let closing: Promise<void> | undefined;
  return {
    close() {
      closing ??= (async () => {
        if (exited) return;
        const answered = new Promise<WireError | undefined>((resolve) => (closed = resolve));
        post({ kind: 'close' });
        const error = await Promise.race([answered, exit.then(() => undefined)]);
        await worker.terminate();
        if (error) throw fromWireError(error);
      })();
      return closing;
    },
  };
}
