import type { DeadLetterReason } from '../deadLetterReasons.js';
import type { MessageSettlement } from '../ports/messageSettlement.js';
import { ProcessOutcome, type ProcessResult } from './processResult.js';

/** The one settlement a message gets. */
export type Settled =
  | { kind: 'complete'; outcome: typeof ProcessOutcome.Applied | typeof ProcessOutcome.Duplicate | typeof ProcessOutcome.Parked }
  | { kind: 'deadLetter'; reason: DeadLetterReason; description: string }
  | { kind: 'abandon'; errorCode: string | undefined; description: string };

/** Service Bus keeps dead-letter descriptions short; longer text is cut. */
export const MAX_DEAD_LETTER_DESCRIPTION = 1024;

/**
 * The single place a core decision becomes a settlement (and the result's outcome). Called exactly once per
 * message, after any commit.
 */
export async function settle(settlement: MessageSettlement, settled: Settled, result: ProcessResult): Promise<void> {
  switch (settled.kind) {
    case 'complete':
      result.outcome = settled.outcome;
      await settlement.complete();
      return;
    case 'deadLetter':
      result.outcome = ProcessOutcome.DeadLettered;
      result.reason = settled.reason;
      result.description = settled.description.slice(0, MAX_DEAD_LETTER_DESCRIPTION);
      await settlement.deadLetter(settled.reason, result.description);
      return;
    case 'abandon':
      result.outcome = ProcessOutcome.Abandoned;
      result.errorCode = settled.errorCode;
      result.description = settled.description;
      await settlement.abandon();
      return;
  }
}
