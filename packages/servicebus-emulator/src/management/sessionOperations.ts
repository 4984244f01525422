import { amqp } from '../broker/amqpTypes.js';
import type { QueueEntity } from '../broker/queueEntity.js';
import { brokerErrors } from '../errors/brokerError.js';
import { toStringField, typedArray } from './codec.js';
import { entityOf } from './types.js';
import type { ManagementOperation, ManagementRequest } from './types.js';

function sessionEntity(req: ManagementRequest): QueueEntity & { sessions: NonNullable<QueueEntity['sessions']> } {
  const entity = entityOf(req);
  if (!entity.sessions) throw brokerErrors.invalid(`The entity ${entity.name} does not require sessions.`);
  return entity as QueueEntity & { sessions: NonNullable<QueueEntity['sessions']> };
}

/** `com.microsoft:renew-session-lock`. */
export const renewSessionLock: ManagementOperation = (req) => {
  const until = sessionEntity(req).sessions.renew(toStringField(req.body['session-id'], 'session-id'));
  return { status: 200, body: { expiration: amqp.wrap_timestamp(until) } };
};

/** `com.microsoft:get-session-state`: the state as binary, or null when never set. */
export const getSessionState: ManagementOperation = (req) => {
  const entity = sessionEntity(req);
  const id = toStringField(req.body['session-id'], 'session-id');
  entity.sessions.requireLocked(id);
  const state = entity.sessions.getState(id);
  return { status: 200, body: { 'session-state': state ?? null } };
};

/** `com.microsoft:set-session-state`. */
export const setSessionState: ManagementOperation = (req) => {
  const entity = sessionEntity(req);
  const id = toStringField(req.body['session-id'], 'session-id');
  entity.sessions.requireLocked(id);
  const raw = req.body['session-state'];
  const state = raw === null || raw === undefined ? undefined : Buffer.isBuffer(raw) ? raw : Buffer.from(String(raw));
  entity.setSessionState(id, state);
  return { status: 200, body: {} };
};

/** `com.microsoft:get-message-sessions`: sessions with messages or state, paged by skip/top. */
export const getMessageSessions: ManagementOperation = (req) => {
  const entity = sessionEntity(req);
  const skip = Number(req.body.skip ?? 0);
  const top = Number(req.body.top ?? 100);
  const ids = entity.sessions
    .list()
    .filter((s) => s.depth > 0 || s.hasState)
    .map((s) => s.id)
    .slice(skip, skip + top);
  if (ids.length === 0) return { status: 204, body: {} };
  return { status: 200, body: { skip: amqp.wrap_int(skip + ids.length), 'sessions-ids': typedArray.strings(ids) } };
};
