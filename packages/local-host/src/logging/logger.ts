import { pino } from 'pino';
import type { DestinationStream, Logger } from 'pino';

/** Options of {@link createHostLogger}. */
export interface HostLoggerOptions {
  /** pino level name (`trace` … `fatal`, `silent`); anything else falls back to `info`. @default 'info' */
  level?: string;
  /** Where JSON lines go (`npm start`'s log output, see `logOutput.ts`). @default stdout */
  destination?: DestinationStream;
}

/** The host's structured JSON logger; functions log through it too (see `invocationContext.ts`). */
export function createHostLogger(options: HostLoggerOptions = {}): Logger {
  return options.destination
    ? pino(loggerConfig(options.level), options.destination)
    : pino(loggerConfig(options.level));
}

function loggerConfig(wanted: string | undefined) {
  const level =
    wanted !== undefined && (wanted.toLowerCase() === 'silent' || wanted.toLowerCase() in pino.levels.values)
      ? wanted.toLowerCase()
      : 'info';
  return { level, base: { host: 'local' } };
}
