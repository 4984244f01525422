import type { OutboxRecord } from '../documents/outboxRecord.js';

/** What one delivery target answered for a record (kept on the completed record for operators). */
export interface DeliveryReceipt {
  /** The target's name, e.g. `order-events` or `webhook`. */
  target: string;
  /** A short description of the answer, e.g. `sent` or `HTTP 204`. */
  detail: string;
}

/**
 * An outbox record as the dispatcher reads and writes it: the document the processor creates (`pending`,
 * attempts 0) plus the fields only dispatching sets. Stores keep unknown fields, so the two stay one document.
 */
export interface OutboxDispatchRecord extends OutboxRecord {
  /** While `pending` after a failed attempt: not before this time (exponential backoff). */
  nextAttemptAt?: string;
  /** Targets that already took this record during an earlier, partly failed attempt; not sent to again. */
  delivered?: string[];
  /** On `completed`: what each target answered. */
  result?: DeliveryReceipt[];
  /** On `failed`: when the attempts ran out. */
  failedAt?: string;
  /** Seconds to live, set on `completed` only: nothing else may expire before it is delivered. */
  ttl?: number;
}
