import type { Connection, Message } from 'rhea';
import rhea from 'rhea';
import type { ReplyRouter } from './replyRouter.js';

/**
 * Claims-based security: every put-token is accepted (the emulator does not check signatures), answered with
 * the CBS reply shape (`status-code` as an AMQP int, which .NET casts to int).
 */
export function handleCbs(router: ReplyRouter, conn: Connection, request: Message): void {
  const op = (request.application_properties as Record<string, unknown> | undefined)?.operation;
  const ok = op === 'put-token';
  router.reply(conn, request.reply_to, {
    correlation_id: request.message_id,
    application_properties: {
      'status-code': rhea.types.wrap_int(ok ? 202 : 400),
      'status-description': ok ? 'Accepted' : `Unsupported CBS operation ${String(op)}`,
    },
    body: undefined,
  } as Message);
}
