/**
 * The core's `Telemetry` port on pino (structured JSON logs) and `@opentelemetry/api` (counters, alert events).
 * The OpenTelemetry API is a no-op until an SDK is registered (Application Insights via `enableApplicationInsights`),
 * so this costs nothing offline and in tests.
 */
import { metrics, trace } from '@opentelemetry/api';
import type { Attributes, Counter, Meter, MeterProvider } from '@opentelemetry/api';
import { pino } from 'pino';
import type { DestinationStream } from 'pino';
import type { AlertFields, AlertName, CounterName, LogLevel, Telemetry } from '../core/ports/telemetry.js';

/** Instrumentation scope name of the app's meters and tracers. */
export const TELEMETRY_SCOPE = 'ledger-convoy';

/** Options of {@link createTelemetry}. */
export interface CreateTelemetryOptions {
  /** Level of the log lines written (env `LOG_LEVEL`). @default 'info' */
  level?: string;
  /**
   * Where pino writes its JSON lines: a host that runs the app in its own process hands it its log stream (the local
   * host: one stream, one format, held until its banner), the CLI stderr. @default stdout
   */
  destination?: DestinationStream;
}

/** Log fields every line may carry, kept first so they are easy to query. */
const KEY_FIELDS = ['entryId', 'orderId', 'sequence', 'ledgerId', 'outcome'] as const;

/**
 * Builds the {@link Telemetry} the app uses.
 * - `log`: a pino line at `level` with the fields (`entryId`, `orderId`, `sequence`, `ledgerId`, `outcome`, ...).
 * - `alert`: a warn-level line with `alert: <name>`, an OpenTelemetry event named exactly `<name>` on the active span
 *   (or on a short span of its own), and one increment of a counter also named exactly `<name>`.
 * - `count`: one increment of the named OpenTelemetry counter.
 */
export function createTelemetry(options: CreateTelemetryOptions = {}): Telemetry {
  const config = { level: options.level ?? 'info', base: { service: TELEMETRY_SCOPE } };
  const logger = options.destination ? pino(config, options.destination) : pino(config);
  // Counters by name on the current meter.
  const counters = onCurrentMeter((meter) => {
    const byName = new Map<string, Counter>();
    return (name: string) => byName.get(name) ?? byName.set(name, meter.createCounter(name)).get(name)!;
  });

  return {
    log(level: LogLevel, message: string, fields: Readonly<Record<string, unknown>>): void {
      logger[level](orderedFields(fields), message);
    },
    alert(name: AlertName, fields: AlertFields): void {
      logger.warn({ alert: name, ...orderedFields(fields) }, `alert ${name}`);
      const attributes = toAttributes(fields);
      const active = trace.getActiveSpan();
      // The tracer is a proxy: it starts real spans once an SDK registers a tracer provider.
      const span = active ?? trace.getTracer(TELEMETRY_SCOPE).startSpan(`alert ${name}`, { attributes });
      span.addEvent(name, attributes);
      if (active === undefined) span.end();
      // Low-cardinality attributes only: order and entry ids belong in the logs and the event, not in a metric.
      counters()(name).add(1);
    },
    count(name: CounterName, attributes?: Readonly<Record<string, string>>): void {
      counters()(name).add(1, attributes ? { ...attributes } : undefined);
    },
  };
}

/**
 * What `make` builds on the app's meter of the global meter provider, looked up at each call: it is registered after
 * startup (Application Insights, a test's `MeterProvider`), and what was built is built again then.
 */
export function onCurrentMeter<T>(make: (meter: Meter) => T): () => T {
  let made: { provider: MeterProvider; value: T } | undefined;
  return () => {
    const provider = metrics.getMeterProvider();
    if (made?.provider !== provider) made = { provider, value: make(provider.getMeter(TELEMETRY_SCOPE)) };
    return made.value;
  };
}

function orderedFields(fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of KEY_FIELDS) if (fields[key] !== undefined) out[key] = fields[key];
  for (const [key, value] of Object.entries(fields)) if (!(key in out) && value !== undefined) out[key] = value;
  return out;
}

/** Span/event attributes: primitives as they are, anything else as JSON. */
function toAttributes(fields: Readonly<Record<string, unknown>>): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    out[key] =
      typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
        ? value
        : JSON.stringify(value);
  }
  return out;
}
