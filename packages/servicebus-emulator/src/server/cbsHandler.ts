import type { Connection, Message } from 'rhea';
import rhea from 'rhea';
import type { AccessControl, Grant } from '../auth/accessControl.js';
import type { ReplyRouter } from './replyRouter.js';

/** The tokens each connection put on `$cbs` and that verified, by the audience they were put for. */
export class ConnectionGrants {
  private readonly byConnection = new WeakMap<Connection, Map<string, Grant>>();

  /** Records (or renews) a grant. */
  put(conn: Connection, audience: string, grant: Grant): void {
    let grants = this.byConnection.get(conn);
    if (!grants) this.byConnection.set(conn, (grants = new Map()));
    grants.set(audience, grant);
  }

  /** Every grant of a connection. */
  of(conn: Connection): Grant[] {
    return [...(this.byConnection.get(conn)?.values() ?? [])];
  }
}

/**
 * Claims-based security: a put-token's shared access signature is verified ({@link AccessControl}) and, when
 * valid, kept for the connection; the reply has the CBS shape (`status-code` as an AMQP int, which .NET casts to
 * int): 202, or 401 with Azure's reason (InvalidSignature, ExpiredToken).
 */
export function handleCbs(
  router: ReplyRouter,
  access: AccessControl,
  grants: ConnectionGrants,
  conn: Connection,
  request: Message,
): void {
  const props = (request.application_properties as Record<string, unknown> | undefined) ?? {};
  const op = props.operation;
  let status = 202;
  let description = 'Accepted';
  if (op !== 'put-token') {
    status = 400;
    description = `Unsupported CBS operation ${String(op)}`;
  } else {
    const result = access.authenticate(typeof request.body === 'string' ? request.body : String(request.body ?? ''));
    if ('code' in result) {
      status = 401;
      description = result.message;
    } else {
      grants.put(conn, String(props.name ?? ''), result);
    }
  }
  router.reply(conn, request.reply_to, {
    correlation_id: request.message_id,
    application_properties: { 'status-code': rhea.types.wrap_int(status), 'status-description': description },
    body: undefined,
  } as Message);
}
