import { AsyncLocalStorage } from 'node:async_hooks';
import type { DestinationStream } from 'pino';

/** The function invocation a log line was written in (the host runs each handler inside one). */
export interface InvocationScope {
  function: string;
  invocationId: string;
}

const invocations = new AsyncLocalStorage<InvocationScope>();

/** Runs `work` as an invocation of `scope`: app log lines written meanwhile name its function and invocation. */
export function inInvocation<T>(scope: InvocationScope, work: () => T): T {
  return invocations.run(scope, work);
}

/** Options of {@link createLogOutput}. */
export interface LogOutputOptions {
  /** Human-readable lines (a terminal) instead of JSON lines (CI, a pipe, `--json`). */
  pretty: boolean;
  /** Where lines go. @default process.stdout */
  stream?: NodeJS.WritableStream;
}

/** The host's and the app's one log stream. */
export interface LogOutput extends DestinationStream {
  /**
   * Lines are held until this is called (the banner goes first), then written in order; human-readable ones after
   * `pino-pretty` loaded, which keeps its load out of the start-up.
   */
  open(): Promise<void>;
}

/**
 * One destination for the host's logger and the app's (the app gets it through `composeApp`'s `logDestination`),
 * held until the banner is out. A line written inside an invocation that names no function gets the invocation's
 * `function` and `invocationId` (the app logs through its own logger, which knows neither).
 */
export function createLogOutput(options: LogOutputOptions): LogOutput {
  const stream = options.stream ?? process.stdout;
  let held: string[] | undefined = [];
  let sink: (line: string) => void = (line) => void stream.write(line);
  return {
    write(line: string) {
      const scoped = withInvocation(line);
      if (held) held.push(scoped);
      else sink(scoped);
    },
    async open() {
      if (!held) return;
      if (options.pretty) sink = await humanSink(stream);
      const lines = held;
      held = undefined;
      for (const line of lines) sink(line);
    },
  };
}

function withInvocation(line: string): string {
  const scope = invocations.getStore();
  if (!scope || line.includes('"function":') || !line.endsWith('}\n')) return line;
  return `${line.slice(0, -2)},"function":${JSON.stringify(scope.function)},"invocationId":${JSON.stringify(scope.invocationId)}}\n`;
}

/** Fields the compact line shows in its own columns, or that a person does not need at a glance. */
const SHOWN = ['function', 'orderId', 'sequence', 'outcome'];
const HIDDEN = [
  'pid',
  'hostname',
  'host',
  'service',
  'invocationId',
  'startup',
  'processStartedAt',
  'buildMs',
  'functions',
  'intervalMs',
  'entryId',
  'messageId',
  'queue',
  'deliveryCount',
  'durationMs',
  'traceparent',
  'requestHash',
  'drained',
  'rejected',
];

/**
 * `HH:MM:ss.mmm LEVEL function order #seq outcome message {other fields}`, through pino-pretty (colours only on a
 * terminal).
 */
async function humanSink(stream: NodeJS.WritableStream): Promise<(line: string) => void> {
  const { default: pretty } = await import('pino-pretty');
  const colorize = (stream as { isTTY?: boolean }).isTTY === true;
  const out = pretty({
    destination: stream,
    sync: true,
    colorize,
    translateTime: 'HH:MM:ss.l',
    singleLine: true,
    ignore: [...SHOWN, ...HIDDEN].join(','),
    messageFormat: (log, messageKey) => {
      const text = (value: unknown) => (value === undefined || value === null ? undefined : String(value));
      const fn = text(log.function);
      const order = text(log.orderId);
      const sequence = text(log.sequence);
      const outcome = text(log.outcome);
      return [fn, order && (sequence ? `${order} #${sequence}` : order), outcome, text(log[messageKey])]
        .filter(Boolean)
        .join('  ');
    },
  });
  return (line) => void out.write(line);
}
