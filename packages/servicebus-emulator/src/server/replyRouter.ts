import type { Connection, Message, Sender } from 'rhea';
import { pushAfterTurn, socketOf } from './framePush.js';
import { internals } from './rheaLink.js';

/**
 * Request/response links ($cbs, $management) answer on the client's receiving link whose name or target
 * address equals the request's `reply_to`.
 */
export class ReplyRouter {
  private readonly byConnection = new WeakMap<Connection, Map<string, Sender>>();

  /** Registers a client receiving link as a reply destination. */
  register(sender: Sender): void {
    const conn = sender.connection;
    let map = this.byConnection.get(conn);
    if (!map) this.byConnection.set(conn, (map = new Map()));
    map.set(sender.name, sender);
    const target = internals(sender).remote.attach?.target?.address;
    if (target) map.set(target, sender);
  }

  /** Sends `reply` to the link named by `replyTo`; silently drops it when that link is gone. */
  reply(conn: Connection, replyTo: string | undefined, reply: Message): void {
    if (!replyTo) return;
    const sender = this.byConnection.get(conn)?.get(replyTo);
    if (!sender || !sender.is_open()) return;
    // Replies go presettled: nothing to track, so long-lived management links never fill rhea's buffer.
    const delivery = sender.send(reply) as unknown as { settled: boolean };
    delivery.settled = true;
    // The client waits on this reply (a token accepted, a lock renewed): it must not wait for a delayed ACK too.
    const socket = socketOf(conn);
    if (socket) pushAfterTurn(socket);
  }
}
