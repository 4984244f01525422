/**
 * Entry point of the worker thread that runs the host's Service Bus triggers, as the Functions host runs them outside
 * the Node worker: it accepts the sessions, receives, renews the locks, keeps the idle timeouts and the concurrency
 * limits, and hands each message to the main thread, which invokes the function; the function's settlement actions
 * come back as requests, executed here on the receiver that holds the message. Protocol:
 * servicebus/triggerProtocol.ts; the main thread's side: servicebus/serviceBusHost.ts.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ServiceBusClient } from '@azure/service-bus';
import { startQueueTrigger } from './servicebus/queueTrigger.js';
import { serviceBusClientFor } from './servicebus/serviceBusClients.js';
import { startSessionTrigger } from './servicebus/sessionTrigger.js';
import type { HeldMessage, TriggerListener, TriggerLog } from './servicebus/triggerListener.js';
import { toWireError } from './servicebus/triggerProtocol.js';
import type {
  SettlementRequest,
  TriggerHostMessage,
  TriggerLogLevel,
  TriggerThreadData,
  TriggerThreadMessage,
} from './servicebus/triggerProtocol.js';
import { toWireMessage } from './servicebus/wireMessage.js';

const port = parentPort;
if (!port) throw new Error('triggerWorker.ts runs only as a worker thread');
const { triggers, connections, hostOptions, logLevels } = workerData as TriggerThreadData;
const post = (message: TriggerThreadMessage): void => port.postMessage(message);

/** The messages whose invocation runs, by invocation: what a settlement request names. */
const held = new Map<number, HeldMessage>();
const invoked = new Map<number, (releaseSession: boolean) => void>();
let invocations = 0;

// One client per connection setting, as the host shares one per connection.
const clients = new Map<string, ServiceBusClient>(
  await Promise.all(
    Object.entries(connections).map(
      async ([name, connection]) => [name, await serviceBusClientFor(connection)] as const,
    ),
  ),
);

const logFor = (trigger: number): TriggerLog => {
  const line =
    (level: TriggerLogLevel) =>
    (fields: Record<string, unknown>, msg: string): void => {
      if (!logLevels.includes(level)) return;
      const { err, ...rest } = fields;
      post({ kind: 'log', trigger, level, fields: err === undefined ? rest : { ...rest, err: toWireError(err) }, msg });
    };
  return { debug: line('debug'), warn: line('warn'), error: line('error') };
};

const listeners: TriggerListener[] = triggers.map((registration, trigger) => {
  const start = registration.options.isSessionsEnabled ? startSessionTrigger : startQueueTrigger;
  return start({
    client: clients.get(registration.options.connection)!,
    registration,
    hostOptions,
    log: logFor(trigger),
    dispatch: (message) =>
      new Promise((resolve) => {
        const invocation = (invocations += 1);
        held.set(invocation, message);
        invoked.set(invocation, (releaseSession) => resolve({ releaseSession }));
        post({
          kind: 'invoke',
          invocation,
          trigger,
          message: toWireMessage(message.message),
          session: message.session !== undefined,
        });
      }),
  });
});

/** Executes one settlement on the receiver that holds the message, as the extension's settlement service does. */
async function settle(message: HeldMessage, request: SettlementRequest): Promise<Date | undefined> {
  const { receiver, queue, session } = message;
  // A message's outcomes go through its settlement queue, in the order the function asked for them.
  const outcome = async (run: () => Promise<void>): Promise<undefined> => {
    await queue.run(run);
    return undefined;
  };
  switch (request.action) {
    case 'complete':
      return outcome(() => receiver.completeMessage(message.message));
    case 'abandon':
      return outcome(() => receiver.abandonMessage(message.message, request.propertiesToModify));
    case 'deadLetter':
      return outcome(() => receiver.deadLetterMessage(message.message, request.details));
    case 'defer':
      return outcome(() => receiver.deferMessage(message.message, request.propertiesToModify));
    case 'renewMessageLock':
      await receiver.renewMessageLock(message.message);
      return undefined;
    case 'setSessionState':
      await session!.setSessionState(Buffer.from(request.state));
      return undefined;
    case 'renewSessionLock':
      return session!.renewSessionLock();
  }
}

let closing: Promise<void> | undefined;
port.on('message', (request: TriggerHostMessage) => {
  if (request.kind === 'settle') {
    const message = held.get(request.invocation);
    const settled = message
      ? settle(message, request.settlement)
      : Promise.reject(new Error(`invocation ${request.invocation} is over`));
    settled.then(
      (lockedUntil) => post({ kind: 'settled', request: request.request, lockedUntil }),
      (error: unknown) => post({ kind: 'settled', request: request.request, error: toWireError(error) }),
    );
  } else if (request.kind === 'invoked') {
    // The real host forgets the lock token and the session here (see messageActions.ts).
    held.delete(request.invocation);
    invoked.get(request.invocation)?.(request.releaseSession);
    invoked.delete(request.invocation);
  } else if (request.kind === 'close') {
    closing ??= (async () => {
      await Promise.all(listeners.map((listener) => listener.close()));
      await Promise.all([...clients.values()].map((client) => client.close()));
    })().then(
      () => post({ kind: 'closed' }),
      (error: unknown) => post({ kind: 'closed', error: toWireError(error) }),
    );
  }
});
