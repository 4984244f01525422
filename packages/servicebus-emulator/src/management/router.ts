import type { Connection, Message, Typed } from 'rhea';
import { amqp } from '../broker/amqpTypes.js';
import type { Broker } from '../broker/broker.js';
import type { EntityManager } from '../broker/entityManager.js';
import type { AccessControl, Grant } from '../auth/accessControl.js';
import type { AccessRight } from '../config.js';
import { bodyMapEntry } from '../broker/wireMessage.js';
import { brokerErrors, isBrokerError } from '../errors/brokerError.js';
import type { ReplyRouter } from '../server/replyRouter.js';
import { peekMessage } from './peekMessage.js';
import { receiveBySequenceNumber } from './receiveBySequenceNumber.js';
import { renewLock } from './renewLock.js';
import { addRule, enumerateRules, removeRule } from './ruleOperations.js';
import { cancelScheduledMessage, scheduleMessage } from './scheduleMessage.js';
import { getMessageSessions, getSessionState, renewSessionLock, setSessionState } from './sessionOperations.js';
import type { ManagementOperation, ManagementReply } from './types.js';
import { updateDisposition } from './updateDisposition.js';

const operations: Record<string, ManagementOperation> = {
  'com.microsoft:renew-lock': renewLock,
  'com.microsoft:update-disposition': updateDisposition,
  'com.microsoft:schedule-message': scheduleMessage,
  'com.microsoft:cancel-scheduled-message': cancelScheduledMessage,
  'com.microsoft:peek-message': peekMessage,
  'com.microsoft:receive-by-sequence-number': receiveBySequenceNumber,
  'com.microsoft:renew-session-lock': renewSessionLock,
  'com.microsoft:get-session-state': getSessionState,
  'com.microsoft:set-session-state': setSessionState,
  'com.microsoft:get-message-sessions': getMessageSessions,
  'com.microsoft:add-rule': addRule,
  'com.microsoft:remove-rule': removeRule,
  'com.microsoft:enumerate-rules': enumerateRules,
};

/** The right each operation needs beyond a token for the entity: sending for schedules, managing for rules. */
const rightOf = (op: string): AccessRight =>
  op === 'com.microsoft:schedule-message' || op === 'com.microsoft:cancel-scheduled-message'
    ? 'Send'
    : op === 'com.microsoft:add-rule' || op === 'com.microsoft:remove-rule'
      ? 'Manage'
      : 'Listen';

/** What a `$management` request is handled with. */
export interface ManagementContext {
  readonly broker: Broker;
  readonly entities: EntityManager;
  readonly router: ReplyRouter;
  readonly access: AccessControl;
  /** The verified tokens of the request's connection. */
  readonly grants: readonly Grant[];
}

/**
 * Runs one `$management` request and replies with `statusCode`/`statusDescription` (the management names,
 * not CBS's) and, on failure, the `errorCondition` the SDKs translate.
 */
export async function handleManagement(
  context: ManagementContext,
  conn: Connection,
  address: string,
  request: Message,
  raw: Buffer | undefined,
): Promise<void> {
  const { broker, entities, router } = context;
  const props = (request.application_properties ?? {}) as Record<string, unknown>;
  const op = String(props.operation ?? '');
  let reply: ManagementReply;
  let error: { condition: string; description: string } | undefined;
  try {
    const handler = operations[op];
    if (!handler) throw brokerErrors.notImplemented(`The $management operation ${op}`);
    context.access.authorize(context.grants, `${address}/$management`, rightOf(op), address);
    broker.touch(address);
    const typedField = (key: string): Typed | undefined => (raw ? bodyMapEntry(raw, key) : undefined);
    reply = await handler({
      broker,
      entities,
      address,
      body: (request.body ?? {}) as Record<string, unknown>,
      typedField,
    });
  } catch (err) {
    const e = isBrokerError(err) ? err : brokerErrors.badRequest(String((err as Error).message ?? err));
    reply = { status: e.status };
    error = e.toAmqp();
  }
  const message = {
    correlation_id: request.message_id,
    application_properties: {
      statusCode: amqp.wrap_int(reply.status),
      statusDescription: error?.description ?? (reply.status === 204 ? 'No Content' : 'OK'),
      ...(error ? { errorCondition: amqp.wrap_symbol(error.condition) } : {}),
      'com.microsoft:tracking-id': props['com.microsoft:tracking-id'],
    },
    body: reply.body ?? {},
  } as Message;
  // With a data directory, state changes (settlements, session state, schedules) are on disk before the reply.
  if (!broker.store.durable) router.reply(conn, request.reply_to, message);
  else
    await broker.store.flush().then(
      () => router.reply(conn, request.reply_to, message),
      () => undefined,
    );
}
