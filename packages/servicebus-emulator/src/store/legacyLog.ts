import type { SerializedMessage, StoreRecord } from './messageStore.js';

/** A record as logs written before the keys were spelled out held it (`{ t, e, s, m, … }`). */
interface ShortRecord {
  t: 'put' | 'del' | 'upd' | 'state' | 'dup' | 'undup';
  e: string;
  s?: number;
  m?: ShortMessage;
  dc?: number;
  df?: boolean;
  pl?: 'available' | 'deferred';
  ap?: string;
  ex?: number | null;
  id?: string;
  v?: string | null;
  at?: number;
}

interface ShortMessage {
  s: number; id: string; sid?: string; et: number; ex: number | null; ttl?: number; dc: number; df: boolean;
  pl: SerializedMessage['place']; dls?: string; h: SerializedMessage['header']; a?: string; p: string; ap?: string; b: string;
}

function upgradeMessage(m: ShortMessage): SerializedMessage {
  return {
    sequenceNumber: m.s, messageId: m.id, sessionId: m.sid, enqueuedTime: m.et, expiresAt: m.ex, ttlMs: m.ttl, deliveryCount: m.dc,
    deferred: m.df, place: m.pl, deadLetterSource: m.dls, header: m.h, annotations: m.a, properties: m.p, applicationProperties: m.ap, body: m.b,
  };
}

/**
 * Reads one parsed log line: current records as they are, records of the earlier short-key format converted, so a
 * data directory written by an earlier version keeps its messages (the log is rewritten in the current format at open).
 */
export function readRecord(raw: unknown): StoreRecord {
  const r = raw as Partial<ShortRecord> & { type?: string };
  if (r.type !== undefined || r.t === undefined) return raw as StoreRecord;
  const entity = r.e as string;
  switch (r.t) {
    case 'put': return { type: 'messageStored', entity, message: upgradeMessage(r.m as ShortMessage) };
    case 'del': return { type: 'messageRemoved', entity, sequenceNumber: r.s as number };
    case 'upd':
      return { type: 'messageUpdated', entity, sequenceNumber: r.s as number, changes: { deliveryCount: r.dc, deferred: r.df, place: r.pl, applicationProperties: r.ap, expiresAt: r.ex } };
    case 'state': return { type: 'sessionState', entity, sessionId: r.id as string, state: r.v ?? null };
    case 'dup': return { type: 'duplicateIdSeen', entity, messageId: r.id as string, at: r.at as number };
    case 'undup': return { type: 'duplicateIdWithdrawn', entity, messageId: r.id as string, at: r.at as number };
  }
}
