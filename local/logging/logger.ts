import { pino } from 'pino';
import type { DestinationStream, Logger } from 'pino';

/** Options of {@link createHostLogger}. */
export interface HostLoggerOptions {
  /** pino level name (`trace` … `fatal`, `silent`); anything else falls back to `info`. @default 'info' */
  level?: string;
  /** Where JSON lines go. @default stdout */
  destination?: DestinationStream;
}

/** The host's structured JSON logger; functions log through it too (see `invocationContext.ts`). */
export function createHostLogger(options: HostLoggerOptions = {}): Logger {
  const wanted = options.level?.toLowerCase();
  const level = wanted !== undefined && (wanted === 'silent' || wanted in pino.levels.values) ? wanted : 'info';
  const config = { level, base: { host: 'local' } };
  return options.destination ? pino(config, options.destination) : pino(config);
}
