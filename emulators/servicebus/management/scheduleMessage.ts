import { checkSend } from '../broker/sendRules.js';
import { parseMessage } from '../broker/wireMessage.js';
import { brokerErrors } from '../errors/brokerError.js';
import { toLongs, typedArray } from './codec.js';
import { entityOf } from './types.js';
import type { ManagementOperation } from './types.js';

/** `com.microsoft:schedule-message`: each entry carries an encoded message with `x-opt-scheduled-enqueue-time`. */
export const scheduleMessage: ManagementOperation = (req) => {
  const target = req.broker.sendTarget(req.address);
  if (target.kind !== 'queue') throw brokerErrors.notImplemented('Scheduling on a topic');
  const list = req.body.messages;
  if (!Array.isArray(list)) throw brokerErrors.badRequest('messages must be a list');
  const now = Date.now();
  // Every message is checked before any is scheduled: a refusal schedules none of them.
  const parsed = list.map((entry: Record<string, unknown>) => {
    const raw = entry.message;
    if (!Buffer.isBuffer(raw)) throw brokerErrors.badRequest('message must be binary');
    if (raw.length > target.entity.settings.maxMessageSizeBytes) throw brokerErrors.tooLarge(raw.length, target.entity.settings.maxMessageSizeBytes);
    const p = parseMessage(raw);
    checkSend(target.entity, p);
    return p;
  });
  const seqs = parsed.map((p) => target.entity.enqueue(p, now).sequenceNumber);
  return { status: 200, body: { 'sequence-numbers': typedArray.longs(seqs) } };
};

/** `com.microsoft:cancel-scheduled-message`. */
export const cancelScheduledMessage: ManagementOperation = (req) => {
  entityOf(req).cancelScheduled(toLongs(req.body['sequence-numbers'], 'sequence-numbers'));
  return { status: 200, body: {} };
};
