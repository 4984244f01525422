import type { DeadLetterReason } from '../../../src/core/deadLetterReasons.js';
import type { EntryBody } from '../support/entries.js';
import type { RawBody } from '../support/rawMessages.js';

/** A message the processor must dead-letter: its body as delivered, and its session when it is not the order's. */
export interface BadMessage {
  body: RawBody;
  sessionId?: string;
}

/** One session's traffic, for order `orderId` (unique per case). */
export interface EntryScenario {
  /** Valid entries queued first; applied (or parked, see `outcomes`). */
  before: EntryBody[];
  /** Messages each dead-lettered with the case's reason. */
  bad: BadMessage[];
  /** Valid entries queued behind the bad message(s) in the same session. */
  behind: EntryBody[];
  /** The operator's corrected `bad[0]`, resubmitted after the dead letter was read (rule 10). */
  correction?: EntryBody;
  /** Orders that must not exist afterwards (a body naming another order must not create it). */
  absent?: string[];
  /** Overrides the expected outcomes of before + bad + behind, in queue order. */
  outcomes?: string[];
}

/** A corpus row for the `orders` queue: the traffic and its expected end. */
export interface EntryCase {
  name: string;
  build(orderId: string): EntryScenario;
  reason: DeadLetterReason;
  /** The dead letter's description must match. */
  description: RegExp;
  /**
   * Rule 10: true when the bad message held a sequence of the order that was not yet applied, so the entries behind
   * it park until the correction; false when it held nothing and they apply at once.
   */
  holds: boolean;
  /** Fields of the final GET view (after the correction, if any); `parked` and `rejected` must be empty. */
  final: Record<string, unknown>;
}
