import type { SerializedMessage, StoreRecord } from '../store/messageStore.js';
import { deserializeMessage } from '../store/messageStore.js';
import { foldLog } from '../store/foldLog.js';
import type { DuplicateDetection } from './duplicateDetection.js';
import type { QueueEntity } from './queueEntity.js';

/** Where a log's records go back: the broker, seen from here without depending on it. */
export interface RestoreTarget {
  /** The queue, subscription or dead-letter queue of a logged entity path. */
  entityByName(name: string): QueueEntity | undefined;
  /** The duplicate detection of the queue or topic of a logged entity path. */
  duplicatesByName(name: string): DuplicateDetection | undefined;
}

/**
 * Rebuilds entities from the log: surviving messages come back unlocked with their delivery counts, then
 * duplicate-detection entries still inside their window, then session states.
 */
export function restoreInto(target: RestoreTarget, records: StoreRecord[]): void {
  if (records.length === 0) return;
  const { messages, sessionStates, duplicateIds } = foldLog(records);
  for (const [name, bySequence] of messages) {
    const entity = target.entityByName(name);
    if (!entity) continue;
    for (const s of [...bySequence.keys()].sort((a, b) => a - b))
      entity.restore(deserializeMessage(bySequence.get(s) as SerializedMessage));
  }
  const now = Date.now();
  for (const d of duplicateIds) {
    const duplicates = target.duplicatesByName(d.entity);
    if (duplicates && now - d.at < duplicates.windowMs) duplicates.restore(d.messageId, d.at);
  }
  for (const [name, states] of sessionStates) {
    const entity = target.entityByName(name);
    for (const [id, state] of states)
      if (entity?.sessions && state !== null) entity.sessions.setState(id, Buffer.from(state, 'base64'));
  }
}
