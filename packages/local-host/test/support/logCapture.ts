import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { createHostLogger } from '../../src/logging/logger.js';

/**
 * A host logger at debug level whose JSON lines are kept in memory for assertions, parsed (`lines`) and as written
 * (`texts`: what a parser would hide, such as a key written twice).
 */
export function capturingLogger(): { logger: Logger; lines: Record<string, unknown>[]; texts: string[] } {
  const lines: Record<string, unknown>[] = [];
  const texts: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        texts.push(line);
        lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      callback();
    },
  });
  return { logger: createHostLogger({ level: 'debug', destination }), lines, texts };
}
