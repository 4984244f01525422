import type { SerializedMessage, StoreRecord } from '../store/messageStore.js';
import { deserializeMessage } from '../store/messageStore.js';
import { foldLog } from '../store/foldLog.js';
import type { Broker } from './broker.js';

/**
 * Rebuilds entities from the log: surviving messages come back unlocked with their delivery counts, then
 * duplicate-detection entries still inside their window, then session states.
 */
export function restoreInto(broker: Broker, records: StoreRecord[]): void {
  if (records.length === 0) return;
  const { messages, states, dups } = foldLog(records);
  for (const [name, byseq] of messages) {
    const entity = broker.entityByName(name);
    if (!entity) continue;
    for (const s of [...byseq.keys()].sort((a, b) => a - b)) entity.restore(deserializeMessage(byseq.get(s) as SerializedMessage));
  }
  const now = Date.now();
  for (const d of dups) {
    const entity = broker.entityByName(d.e);
    if (entity && now - d.at < entity.settings.duplicateDetectionWindowMs) entity.restoreDedup(d.id, d.at);
  }
  for (const [name, s] of states) {
    const entity = broker.entityByName(name);
    for (const [id, v] of s) if (entity?.sessions && v !== null) entity.sessions.setState(id, Buffer.from(v, 'base64'));
  }
}
