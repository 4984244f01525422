import { renderFor } from '../server/deliveryLink.js';
import { toLong } from './codec.js';
import { entityOf } from './types.js';
import type { ManagementOperation } from './types.js';

/** `com.microsoft:peek-message`: messages from a sequence number on, unlocked; 204 when there are none. */
export const peekMessage: ManagementOperation = (req) => {
  const entity = entityOf(req);
  const from = toLong(req.body['from-sequence-number'] ?? 1, 'from-sequence-number');
  const count = Number(req.body['message-count'] ?? 1);
  const sessionId = req.body['session-id'] as string | undefined;
  const found = entity.peek(from, count, sessionId ?? undefined);
  if (found.length === 0) return { status: 204, body: {} };
  return { status: 200, body: { messages: found.map((m) => ({ message: renderFor(m, undefined, m.deliveryCount) })) } };
};
