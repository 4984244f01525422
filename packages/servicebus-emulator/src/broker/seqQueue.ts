import type { StoredMessage } from './storedMessage.js';

/**
 * Messages ordered by sequence number. New messages append in O(1); a released message goes back to its
 * original place (binary search), so redelivery keeps FIFO order. Entries whose `place` is no longer
 * `available` are skipped lazily by the reader.
 */
export class SeqQueue {
  private items: StoredMessage[] = [];
  private head = 0;

  /** Inserts by sequence number. */
  insert(m: StoredMessage): void {
    const last = this.items[this.items.length - 1];
    if (last === undefined || last.sequenceNumber < m.sequenceNumber || this.head === this.items.length) {
      if (this.head === this.items.length) this.compact(true);
      this.items.push(m);
      return;
    }
    let lo = this.head;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.items[mid] as StoredMessage).sequenceNumber < m.sequenceNumber) lo = mid + 1;
      else hi = mid;
    }
    this.items.splice(lo, 0, m);
  }

  /** The first message still available, without removing it. */
  peek(): StoredMessage | undefined {
    while (this.head < this.items.length) {
      const m = this.items[this.head] as StoredMessage;
      if (m.place === 'available') return m;
      this.head++;
    }
    this.compact(false);
    return undefined;
  }

  /** Removes and returns the first available message. */
  shift(): StoredMessage | undefined {
    const m = this.peek();
    if (m) this.head++;
    if (this.head > 1024 && this.head * 2 > this.items.length) this.compact(false);
    return m;
  }

  /** Available messages in order (skipping stale entries). */
  *available(): Generator<StoredMessage> {
    for (let i = this.head; i < this.items.length; i++) {
      const m = this.items[i] as StoredMessage;
      if (m.place === 'available') yield m;
    }
  }

  private compact(all: boolean): void {
    if (all) {
      this.items = [];
    } else {
      this.items = this.items.slice(this.head);
    }
    this.head = 0;
  }
}
