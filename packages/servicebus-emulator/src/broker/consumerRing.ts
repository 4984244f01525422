import type { Consumer } from './consumer.js';
import type { StoredMessage } from './storedMessage.js';

/** What the ring asks of its entity: the next message a consumer may take, and handing it over. */
export interface DeliverySource {
  /** The next message `consumer` may take now, or undefined. */
  nextFor(consumer: Consumer): StoredMessage | undefined;
  /** Gives `message` to `consumer` (locking or removing it). */
  handOver(consumer: Consumer, message: StoredMessage): void;
}

/**
 * The receiving links of one entity and the order they are served in: round-robin among those with credit,
 * one message at a time, until messages or credit run out. A pump started while one runs (a delivery that
 * frees a message) is folded into the running one.
 */
export class ConsumerRing {
  private readonly consumers: Consumer[] = [];
  private turn = 0;
  private pumping = false;

  constructor(private readonly source: DeliverySource) {}

  /** Whether any link is attached. */
  get size(): number {
    return this.consumers.length;
  }

  /** Registers a receiving link. */
  add(c: Consumer): void {
    this.consumers.push(c);
  }

  /** Unregisters a receiving link. */
  remove(c: Consumer): void {
    const i = this.consumers.indexOf(c);
    if (i >= 0) this.consumers.splice(i, 1);
  }

  /** The link with this id, if still attached. */
  byId(id: string): Consumer | undefined {
    return this.consumers.find((c) => c.id === id);
  }

  /** Every link, and forgets them all (the entity is being deleted). */
  takeAll(): Consumer[] {
    return this.consumers.splice(0, this.consumers.length);
  }

  /** Delivers to every consumer with credit, round-robin, until messages or credit run out. */
  pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    try {
      let progress = true;
      while (progress && this.consumers.length > 0) {
        progress = false;
        for (let n = 0; n < this.consumers.length; n++) {
          const c = this.consumers[(this.turn + n) % this.consumers.length] as Consumer;
          if (c.credit() <= 0) continue;
          const m = this.source.nextFor(c);
          if (!m) continue;
          this.turn = (this.turn + n + 1) % this.consumers.length;
          this.source.handOver(c, m);
          progress = true;
          break;
        }
      }
    } finally {
      this.pumping = false;
    }
  }
}
