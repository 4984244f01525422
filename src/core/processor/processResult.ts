import type { DeadLetterReason } from '../deadLetterReasons.js';

/** How a message ended; each maps to exactly one settlement. */
export const ProcessOutcome = {
  /** Applied now (complete). */
  Applied: 'applied',
  /** Seen before with the same hash (complete). */
  Duplicate: 'duplicate',
  /** Parked behind a gap (complete). */
  Parked: 'parked',
  /** Dead-lettered with `reason`. */
  DeadLettered: 'deadLettered',
  /** Handed back for redelivery after a transient failure outlasted the budget, or an unexpected error. */
  Abandoned: 'abandoned',
} as const;
/** One of {@link ProcessOutcome}. */
export type ProcessOutcome = (typeof ProcessOutcome)[keyof typeof ProcessOutcome];

/** What the processor did with one message, for logs and the host. */
export interface ProcessResult {
  outcome: ProcessOutcome;
  /** For `deadLettered`. */
  reason?: DeadLetterReason;
  /** For `deadLettered` and `abandoned`. */
  description?: string;
  /** For `abandoned`: the `code` of the error, when it had one. */
  errorCode?: string;
  /** From the body, else the session. */
  orderId: string | undefined;
  /** From the body, else the `messageId` (a body that cannot be parsed). */
  entryId: string | undefined;
  sequence: number | undefined;
  messageId: string | undefined;
  requestHash: string | undefined;
  /** Parked entries applied after this one, in the same invocation. */
  drained: number;
  /** Parked entries moved to `rejected` (rule 11) in the same invocation. */
  rejected: number;
  durationMs: number;
  /**
   * Whether the host should hand the session on (`releaseSession`) instead of idling on it for `sessionIdleTimeout`:
   * `orderDeleted` when the order is known deleted after this message (its `OrderDeleted` applied now, directly or by
   * this message's drain, or seen again as a duplicate: end of sequence, nothing can follow); `handOff` when the
   * message carries the splitter's `handOff` marker (its order's last entry in that ledger). Never for an abandoned
   * message: the host stays on the session and the redelivery comes first.
   */
  releaseSession?: 'orderDeleted' | 'handOff';
}

/** A message as the host received it, whatever the host. */
export interface ReceivedOrderMessage {
  /** Object, string, `Buffer`/`Uint8Array`/`ArrayBuffer`: normalised before validating and hashing. */
  body: unknown;
  messageId?: string;
  sessionId?: string;
  correlationId?: string;
  applicationProperties?: Readonly<Record<string, unknown>>;
  deliveryCount?: number;
}
