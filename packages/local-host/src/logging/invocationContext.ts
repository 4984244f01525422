import { randomUUID } from 'node:crypto';
import { format } from 'node:util';
import type {
  InvocationContext as InvocationContextType,
  LogLevel,
  TraceContext,
  TriggerMetadata,
} from '@azure/functions';
import type { Logger } from 'pino';
import { InvocationContext } from '../azureFunctions.js';

/** What {@link createInvocationContext} needs besides the logger. */
export interface InvocationContextOptions {
  functionName: string;
  triggerMetadata?: TriggerMetadata;
  /** W3C trace context of the trigger (an HTTP `traceparent` header, a message's `Diagnostic-Id`). */
  traceContext?: TraceContext;
}

const PINO_LEVEL = {
  trace: 'trace',
  debug: 'debug',
  information: 'info',
  warning: 'warn',
  error: 'error',
  critical: 'fatal',
} as const satisfies Record<Exclude<LogLevel, 'none'>, string>;

/**
 * Builds the library's own `InvocationContext`, its `context.log/info/warn/...` routed to the host's pino logger
 * with the function name and invocation id, so function logs and host logs are one JSON stream.
 */
export function createInvocationContext(logger: Logger, options: InvocationContextOptions): InvocationContextType {
  const invocationId = randomUUID();
  const child = logger.child({ function: options.functionName, invocationId });
  return new InvocationContext({
    invocationId,
    functionName: options.functionName,
    triggerMetadata: options.triggerMetadata,
    traceContext: options.traceContext,
    logHandler: (level: LogLevel, ...args: unknown[]) => {
      if (level === 'none') return;
      const method = PINO_LEVEL[level];
      const [first, ...rest] = args;
      // A lone object (a structured log line such as an alert) keeps its fields; anything else is formatted text.
      if (rest.length === 0 && isPlainObject(first)) child[method](first);
      else if (typeof first === 'string' && rest.length === 1 && isPlainObject(rest[0])) child[method](rest[0], first);
      else child[method](format(...args));
    },
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Error);
}
