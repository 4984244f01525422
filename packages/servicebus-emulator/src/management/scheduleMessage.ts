import { parseMessage } from '../broker/wireMessage.js';
import { brokerErrors } from '../errors/brokerError.js';
import { toLongs, typedArray } from './codec.js';
import type { ManagementOperation } from './types.js';

/**
 * `com.microsoft:schedule-message` on a queue or a topic: each entry carries an encoded message with
 * `x-opt-scheduled-enqueue-time`. Every message is checked before any is scheduled: a refusal schedules none.
 */
export const scheduleMessage: ManagementOperation = (req) => {
  const target = req.broker.sendTarget(req.address);
  const limit = req.broker.maxMessageSize(target);
  const list = req.body.messages;
  if (!Array.isArray(list)) throw brokerErrors.badRequest('messages must be a list');
  const parsed = list.map((entry: Record<string, unknown>) => {
    const raw = entry.message;
    if (!Buffer.isBuffer(raw)) throw brokerErrors.badRequest('message must be binary');
    if (raw.length > limit) throw brokerErrors.tooLarge(raw.length, limit);
    return parseMessage(raw);
  });
  return { status: 200, body: { 'sequence-numbers': typedArray.longs(req.broker.schedule(target, parsed)) } };
};

/** `com.microsoft:cancel-scheduled-message` on a queue or a topic. */
export const cancelScheduledMessage: ManagementOperation = (req) => {
  req.broker.cancelScheduled(
    req.broker.sendTarget(req.address),
    toLongs(req.body['sequence-numbers'], 'sequence-numbers'),
  );
  return { status: 200, body: {} };
};
