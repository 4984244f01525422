import { SeqQueue } from './seqQueue.js';

/** One message session of a session-enabled entity. */
export interface SessionEntry {
  readonly id: string;
  readonly queue: SeqQueue;
  state: Buffer | undefined;
  /** Consumer id holding the session lock, if any. */
  holder: string | undefined;
  /** Epoch ms the lock expires. */
  until: number;
  lastUpdated: number;
  /** Messages of this session held by the entity in any state (available, locked, deferred, scheduled). */
  count: number;
}

/** The sessions of one entity, created on first use. */
export class SessionTable {
  private readonly entries = new Map<string, SessionEntry>();

  /** The session, created empty when absent. */
  get(id: string): SessionEntry {
    let e = this.entries.get(id);
    if (!e) {
      e = {
        id,
        queue: new SeqQueue(),
        state: undefined,
        holder: undefined,
        until: 0,
        lastUpdated: Date.now(),
        count: 0,
      };
      this.entries.set(id, e);
    }
    return e;
  }

  /** The session if it exists. */
  find(id: string): SessionEntry | undefined {
    return this.entries.get(id);
  }

  /** Whether the session is locked by someone right now. */
  isLocked(e: SessionEntry, now: number): boolean {
    return e.holder !== undefined && e.until > now;
  }

  /** The unlocked session whose oldest available message is the oldest overall (fair across sessions). */
  pickNext(now: number): SessionEntry | undefined {
    let best: SessionEntry | undefined;
    let bestSeq = Infinity;
    for (const e of this.entries.values()) {
      if (this.isLocked(e, now)) continue;
      const head = e.queue.peek();
      if (head && head.sequenceNumber < bestSeq) {
        best = e;
        bestSeq = head.sequenceNumber;
      }
    }
    return best;
  }

  /** Every session, for stats and `get-message-sessions`. */
  all(): IterableIterator<SessionEntry> {
    return this.entries.values();
  }

  /** Drops a session that holds nothing: no messages, no state, no lock. */
  prune(e: SessionEntry): void {
    if (e.count === 0 && e.state === undefined && e.holder === undefined) this.entries.delete(e.id);
  }
}
