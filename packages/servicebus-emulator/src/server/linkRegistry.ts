import type { Connection, Receiver, Sender, Session } from 'rhea';

/** A rhea link of either direction. */
export type Link = Sender | Receiver;

/**
 * The broker-side state of every open link, grouped by connection. A link ends in one of four ways — its
 * detach, its AMQP session's end, its connection's close frame, or the socket dropping — and rhea raises only
 * the event of that level, never the link's own. Whichever comes first releases the link here, exactly once,
 * so a held "next session" attach or a session lock never outlives the client that asked for it.
 */
export class LinkRegistry<H> {
  private readonly handlers = new WeakMap<Link, H>();
  private readonly byConnection = new Map<Connection, Set<Link>>();

  /** @param onRelease undoes what the link holds in the engine (called once per link). */
  constructor(private readonly onRelease: (handler: H) => void) {}

  /** Records the handler of a newly attached link. */
  track(link: Link, handler: H): void {
    this.handlers.set(link, handler);
    let set = this.byConnection.get(link.connection);
    if (!set) this.byConnection.set(link.connection, (set = new Set()));
    set.add(link);
  }

  /** The handler of a live link. */
  get(link: Link): H | undefined {
    return this.handlers.get(link);
  }

  /** Releases one link (its detach arrived); a second call is a no-op. */
  release(link: Link): void {
    const handler = this.handlers.get(link);
    this.handlers.delete(link);
    const set = this.byConnection.get(link.connection);
    set?.delete(link);
    if (set?.size === 0) this.byConnection.delete(link.connection);
    if (handler !== undefined) this.onRelease(handler);
  }

  /** Releases every link of an AMQP session that ended. */
  releaseSession(session: Session): void {
    for (const link of [...(this.byConnection.get(session.connection) ?? [])]) {
      if (link.session === session) this.release(link);
    }
  }

  /** Releases every link of a connection that closed or dropped. */
  releaseConnection(conn: Connection): void {
    for (const link of [...(this.byConnection.get(conn) ?? [])]) this.release(link);
    this.byConnection.delete(conn);
  }
}
