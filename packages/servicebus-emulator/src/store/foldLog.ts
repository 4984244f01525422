import type { SerializedMessage, StoreRecord } from './messageStore.js';

/** A message id duplicate detection remembers, for one entity, from `at` on. */
interface DuplicateIdEntry {
  entity: string;
  messageId: string;
  at: number;
}

/** The state a log describes: surviving messages per entity, session states, duplicate-detection entries. */
export interface FoldedLog {
  messages: Map<string, Map<number, SerializedMessage>>;
  sessionStates: Map<string, Map<string, string | null>>;
  duplicateIds: DuplicateIdEntry[];
}

/** Replays records in order into the final state. */
export function foldLog(records: Iterable<StoreRecord>): FoldedLog {
  const messages = new Map<string, Map<number, SerializedMessage>>();
  const sessionStates = new Map<string, Map<string, string | null>>();
  const duplicateIds: DuplicateIdEntry[] = [];
  const of = (entity: string): Map<number, SerializedMessage> => {
    let m = messages.get(entity);
    if (!m) messages.set(entity, (m = new Map()));
    return m;
  };
  for (const r of records) {
    switch (r.type) {
      case 'messageStored':
        of(r.entity).set(r.message.sequenceNumber, { ...r.message });
        break;
      case 'messageRemoved':
        of(r.entity).delete(r.sequenceNumber);
        break;
      case 'messageUpdated': {
        const m = of(r.entity).get(r.sequenceNumber);
        if (m) applyChanges(m, r.changes);
        break;
      }
      case 'sessionState': {
        let s = sessionStates.get(r.entity);
        if (!s) sessionStates.set(r.entity, (s = new Map()));
        s.set(r.sessionId, r.state);
        break;
      }
      case 'duplicateIdSeen':
        duplicateIds.push({ entity: r.entity, messageId: r.messageId, at: r.at });
        break;
      case 'duplicateIdWithdrawn': {
        const i = duplicateIds.findIndex((d) => d.entity === r.entity && d.messageId === r.messageId && d.at === r.at);
        if (i >= 0) duplicateIds.splice(i, 1);
        break;
      }
    }
  }
  return { messages, sessionStates, duplicateIds };
}

function applyChanges(m: SerializedMessage, c: Extract<StoreRecord, { type: 'messageUpdated' }>['changes']): void {
  if (c.deliveryCount !== undefined) m.deliveryCount = c.deliveryCount;
  if (c.deferred !== undefined) m.deferred = c.deferred;
  if (c.place !== undefined) m.place = c.place;
  if (c.applicationProperties !== undefined) m.applicationProperties = c.applicationProperties;
  if (c.expiresAt !== undefined) m.expiresAt = c.expiresAt;
}

/** The folded state written back as the shortest equivalent log (used to compact at start). */
export function toRecords(f: FoldedLog): StoreRecord[] {
  const out: StoreRecord[] = [];
  for (const d of f.duplicateIds) out.push({ type: 'duplicateIdSeen', ...d });
  for (const [entity, bySequence] of f.messages)
    for (const message of bySequence.values()) out.push({ type: 'messageStored', entity, message });
  for (const [entity, s] of f.sessionStates)
    for (const [sessionId, state] of s)
      if (state !== null) out.push({ type: 'sessionState', entity, sessionId, state });
  return out;
}
