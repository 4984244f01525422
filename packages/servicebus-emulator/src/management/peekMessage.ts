import type { StoredMessage } from '../broker/storedMessage.js';
import { renderFor } from '../server/deliveryLink.js';
import { toLong } from './codec.js';
import { entityOf } from './types.js';
import type { ManagementOperation } from './types.js';

/**
 * `com.microsoft:peek-message`: messages from a sequence number on, unlocked; 204 when there are none. With
 * `omit-message-body` the messages go without their body sections.
 */
export const peekMessage: ManagementOperation = (req) => {
  const entity = entityOf(req);
  const from = toLong(req.body['from-sequence-number'] ?? 1, 'from-sequence-number');
  const count = Number(req.body['message-count'] ?? 1);
  const sessionId = req.body['session-id'] as string | undefined;
  const omitBody = req.body['omit-message-body'] === true;
  const found = entity.peek(from, count, sessionId ?? undefined);
  if (found.length === 0) return { status: 204, body: {} };
  const shown = (m: StoredMessage): StoredMessage =>
    omitBody ? { ...m, sections: { ...m.sections, body: Buffer.alloc(0) } } : m;
  return {
    status: 200,
    body: { messages: found.map((m) => ({ message: renderFor(shown(m), undefined, m.deliveryCount) })) },
  };
};
