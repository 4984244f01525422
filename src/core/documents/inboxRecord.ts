import { inboxRecordId } from './documentIds.js';

/** Whether the entry behind an inbox record has been applied or is waiting parked. */
export const InboxStatus = { Applied: 'applied', Parked: 'parked' } as const;
/** One of {@link InboxStatus}. */
export type InboxStatus = (typeof InboxStatus)[keyof typeof InboxStatus];

/**
 * The dedup marker of the Idempotent Consumer (`id = inbox:<consumer>:<entryId>`). Its create in the step's
 * batch is both the lookup and the write: a 409 means "seen before" and the stored hash decides between a
 * duplicate and a reused key. `ttl` (seconds, Cosmos per-item TTL) bounds its life; see `inboxTtlSeconds`.
 */
export interface InboxRecord {
  id: string;
  docType: 'inbox';
  orderId: string;
  consumer: string;
  entryId: string;
  requestHash: string;
  sequence: number;
  status: InboxStatus;
  recordedAt: string;
  ttl: number;
  /**
   * Token of the processing attempt that wrote it. After a commit with an unknown outcome, finding the record
   * with our own token proves that commit went through; any other token means a concurrent processor wrote it.
   */
  attempt?: string;
}

/** Fields of a new inbox record. */
export interface InboxRecordInput {
  consumer: string;
  orderId: string;
  entryId: string;
  requestHash: string;
  sequence: number;
  status: InboxStatus;
  now: string;
  ttlSeconds: number;
  attempt?: string;
}

/** Builds an inbox record. */
export function inboxRecord(input: InboxRecordInput): InboxRecord {
  return {
    id: inboxRecordId(input.consumer, input.entryId),
    docType: 'inbox',
    orderId: input.orderId,
    consumer: input.consumer,
    entryId: input.entryId,
    requestHash: input.requestHash,
    sequence: input.sequence,
    status: input.status,
    recordedAt: input.now,
    ttl: input.ttlSeconds,
    ...(input.attempt !== undefined && { attempt: input.attempt }),
  };
}
