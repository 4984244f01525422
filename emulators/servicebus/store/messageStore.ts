import type { StoredMessage } from '../broker/storedMessage.js';

/** A message as written to disk: buffers in base64, `Infinity` as null. */
export interface SerializedMessage {
  s: number;
  id: string;
  sid?: string;
  et: number;
  ex: number | null;
  ttl?: number;
  dc: number;
  df: boolean;
  pl: 'available' | 'deferred' | 'scheduled';
  dls?: string;
  h: { durable?: boolean; priority?: number; ttl?: number };
  a?: string;
  p: string;
  ap?: string;
  b: string;
}

/** One change to an entity, in the order it happened. */
export type StoreRecord =
  | { t: 'put'; e: string; m: SerializedMessage; dup?: number }
  | { t: 'del'; e: string; s: number }
  | { t: 'upd'; e: string; s: number; dc?: number; df?: boolean; pl?: 'available' | 'deferred'; ap?: string; et?: number; ex?: number | null }
  | { t: 'state'; e: string; id: string; v: string | null }
  | { t: 'dup'; e: string; id: string; at: number }
  /** A `dup` of a send whose write failed, taken back. */
  | { t: 'undup'; e: string; id: string; at: number };

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
    s: m.sequenceNumber, id: m.messageId, sid: m.sessionId, et: m.enqueuedTime,
    ex: Number.isFinite(m.expiresAt) ? m.expiresAt : null, ttl: m.ttlMs, dc: m.deliveryCount, df: m.deferred,
    pl: m.place === 'scheduled' ? 'scheduled' : m.deferred ? 'deferred' : 'available', dls: m.deadLetterSource,
    h: s.header, a: s.annotations?.toString('base64'), p: s.properties.toString('base64'),
    ap: s.appProps?.toString('base64'), b: s.body.toString('base64'),
  };
}

/** Rebuilds a message from the log. */
export function deserializeMessage(r: SerializedMessage): StoredMessage {
  const b64 = (v: string | undefined): Buffer | undefined => (v === undefined ? undefined : Buffer.from(v, 'base64'));
  const sections = { header: r.h, annotations: b64(r.a), properties: b64(r.p) as Buffer, appProps: b64(r.ap), body: b64(r.b) as Buffer };
  return {
    sequenceNumber: r.s, messageId: r.id, sessionId: r.sid, enqueuedTime: r.et, expiresAt: r.ex ?? Infinity,
    ttlMs: r.ttl, deliveryCount: r.dc, deferred: r.df, place: r.pl === 'deferred' ? 'deferred' : r.pl,
    deadLetterSource: r.dls, sections,
    size: sections.properties.length + (sections.appProps?.length ?? 0) + sections.body.length + (sections.annotations?.length ?? 0),
  };
}
