import type { StoredMessage } from '../broker/storedMessage.js';
import type { HeaderFields } from '../broker/wireMessage.js';

/** A message as the log keeps it: AMQP sections in base64, a message that never expires with `expiresAt: null`. */
export interface SerializedMessage {
  sequenceNumber: number;
  messageId: string;
  sessionId?: string;
  enqueuedTime: number;
  expiresAt: number | null;
  ttlMs?: number;
  deliveryCount: number;
  deferred: boolean;
  /** Came in scheduled (absent in logs of earlier versions: then only while still scheduled). */
  scheduled?: boolean;
  place: 'available' | 'deferred' | 'scheduled';
  deadLetterSource?: string;
  header: HeaderFields;
  annotations?: string;
  properties: string;
  applicationProperties?: string;
  body: string;
}

/** What a `messageUpdated` record changes; absent fields stay as they were. */
export interface MessageChanges {
  deliveryCount?: number;
  deferred?: boolean;
  place?: 'available' | 'deferred';
  applicationProperties?: string;
  expiresAt?: number | null;
}

/** One change to an entity, in the order it happened. `entity` is the entity's path (a DLQ's ends in `/$DeadLetterQueue`). */
export type StoreRecord =
  | { type: 'messageStored'; entity: string; message: SerializedMessage }
  | { type: 'messageRemoved'; entity: string; sequenceNumber: number }
  | { type: 'messageUpdated'; entity: string; sequenceNumber: number; changes: MessageChanges }
  | { type: 'sessionState'; entity: string; sessionId: string; state: string | null }
  /** A message id duplicate detection remembers from `at` on. */
  | { type: 'duplicateIdSeen'; entity: string; messageId: string; at: number }
  /** A `duplicateIdSeen` of a send whose write failed, taken back. */
  | { type: 'duplicateIdWithdrawn'; entity: string; messageId: string; at: number };

/**
 * Where entity changes go. The in-memory store drops them; the file store appends them to a log and
 * `flush()` resolves once everything appended so far is on disk (fsync), which is when a send is acknowledged.
 */
export interface MessageStore {
  /** True when `flush()` means "on disk". */
  readonly durable: boolean;
  append(record: StoreRecord): void;
  flush(): Promise<void>;
  /** Records to replay at start, oldest first. */
  load(): StoreRecord[];
  close(): Promise<void>;
}

/** Serializes a message for the log. */
export function serializeMessage(m: StoredMessage): SerializedMessage {
  const s = m.sections;
  return {
    sequenceNumber: m.sequenceNumber,
    messageId: m.messageId,
    sessionId: m.sessionId,
    enqueuedTime: m.enqueuedTime,
    expiresAt: Number.isFinite(m.expiresAt) ? m.expiresAt : null,
    ttlMs: m.ttlMs,
    deliveryCount: m.deliveryCount,
    deferred: m.deferred,
    ...(m.scheduled ? { scheduled: true } : {}),
    place: m.place === 'scheduled' ? 'scheduled' : m.deferred ? 'deferred' : 'available',
    deadLetterSource: m.deadLetterSource,
    header: s.header,
    annotations: s.annotations?.toString('base64'),
    properties: s.properties.toString('base64'),
    applicationProperties: s.appProps?.toString('base64'),
    body: s.body.toString('base64'),
  };
}

/** Rebuilds a message from the log. */
export function deserializeMessage(r: SerializedMessage): StoredMessage {
  const b64 = (v: string | undefined): Buffer | undefined => (v === undefined ? undefined : Buffer.from(v, 'base64'));
  const sections = {
    header: r.header,
    annotations: b64(r.annotations),
    properties: b64(r.properties) as Buffer,
    appProps: b64(r.applicationProperties),
    body: b64(r.body) as Buffer,
  };
  return {
    sequenceNumber: r.sequenceNumber,
    messageId: r.messageId,
    sessionId: r.sessionId,
    enqueuedTime: r.enqueuedTime,
    expiresAt: r.expiresAt ?? Infinity,
    ttlMs: r.ttlMs,
    deliveryCount: r.deliveryCount,
    deferred: r.deferred,
    scheduled: r.scheduled ?? r.place === 'scheduled',
    place: r.place,
    deadLetterSource: r.deadLetterSource,
    sections,
    size:
      sections.properties.length +
      (sections.appProps?.length ?? 0) +
      sections.body.length +
      (sections.annotations?.length ?? 0),
  };
}
