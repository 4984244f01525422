import type { StoredMessage } from './storedMessage.js';

/** Per-entity counts for the admin port and the management API. */
export interface EntityCounts {
  active: number;
  locked: number;
  scheduled: number;
  deferred: number;
}

/** Every message an entity holds, in any state, by sequence number: what peek, counts and sizes read. */
export class MessageIndex {
  private readonly bySequence = new Map<number, StoredMessage>();

  /** Adds or replaces a message. */
  add(m: StoredMessage): void {
    this.bySequence.set(m.sequenceNumber, m);
  }

  /** Forgets a message. */
  delete(m: StoredMessage): void {
    this.bySequence.delete(m.sequenceNumber);
  }

  /** The message with this sequence number. */
  get(sequenceNumber: number): StoredMessage | undefined {
    return this.bySequence.get(sequenceNumber);
  }

  /** A copy of every message (safe to remove from while iterating). */
  all(): StoredMessage[] {
    return [...this.bySequence.values()];
  }

  /** Bytes held: the encoded size of every message, as the management API's `SizeInBytes`. */
  sizeInBytes(): number {
    let n = 0;
    for (const m of this.bySequence.values()) n += m.size;
    return n;
  }

  /** Messages from `from` on, in order, of one session when `sessionId` is given; deferred and scheduled ones too. */
  peek(from: number, count: number, sessionId: string | undefined): StoredMessage[] {
    const out: StoredMessage[] = [];
    const sequenceNumbers = [...this.bySequence.keys()].filter((s) => s >= from).sort((a, b) => a - b);
    for (const s of sequenceNumbers) {
      const m = this.bySequence.get(s) as StoredMessage;
      if (sessionId !== undefined && m.sessionId !== sessionId) continue;
      out.push(m);
      if (out.length >= count) break;
    }
    return out;
  }

  /** Counts by state; a locked message counts as active too. */
  counts(): EntityCounts {
    const c: EntityCounts = { active: 0, locked: 0, scheduled: 0, deferred: 0 };
    for (const m of this.bySequence.values()) {
      if (m.place === 'scheduled') c.scheduled++;
      else if (m.place === 'deferred') c.deferred++;
      else {
        c.active++;
        if (m.place === 'locked') c.locked++;
      }
    }
    return c;
  }
}
