import { amqp } from '../broker/amqpTypes.js';
import { tokenToUuidBytes } from '../broker/lockToken.js';
import { renderFor } from '../server/deliveryLink.js';
import { toLongs } from './codec.js';
import { entityOf } from './types.js';
import type { ManagementOperation } from './types.js';

/** `com.microsoft:receive-by-sequence-number`: receives deferred messages (locking them in peekLock mode). */
export const receiveBySequenceNumber: ManagementOperation = (req) => {
  const entity = entityOf(req);
  const seqs = toLongs(req.body['sequence-numbers'], 'sequence-numbers');
  const mode = Number(req.body['receiver-settle-mode'] ?? 1) === 0 ? 'receiveAndDelete' : 'peekLock';
  const sessionId = (req.body['session-id'] ?? undefined) as string | undefined;
  if (entity.sessions && sessionId !== undefined) entity.sessions.requireLocked(sessionId);
  const received = entity.receiveDeferred(seqs, mode, sessionId);
  return {
    status: 200,
    body: {
      messages: received.map(({ message, lock }) => ({
        ...(lock ? { 'lock-token': amqp.wrap_uuid(tokenToUuidBytes(lock.token)) } : {}),
        message: renderFor(message, lock, lock ? lock.priorDeliveries : message.deliveryCount),
      })),
    },
  };
};
