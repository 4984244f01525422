import { brokerErrors } from '../errors/brokerError.js';
import { newLockToken } from './lockToken.js';
import type { MessageLock, StoredMessage } from './storedMessage.js';
import type { TimerQueue } from './timerQueue.js';

/**
 * The peek-locks of one entity, by lock token. A lock of a plain entity runs out on its own timer
 * (`expires: true`); one of a session entity is bound to its session's lock, which the session coordinator ends.
 */
export class MessageLocks {
  private readonly byToken = new Map<string, MessageLock>();

  constructor(
    private readonly timers: TimerQueue,
    /** Called when a lock ran out without being settled or renewed, and when one is found run out. */
    private readonly onExpired: (lock: MessageLock) => void,
    /** In a session entity, whether the lock's owner still holds its message's session: its locks live as long. */
    private readonly sessionHeld?: (lock: MessageLock, now: number) => boolean,
  ) {}

  /**
   * The live lock of a token for a settlement or a renewal; throws MessageLockLost (SessionLockLost in a session
   * entity) when it is unknown or ran out. A plain lock found run out before its timer fired ends here.
   */
  live(token: string): MessageLock {
    const lock = this.byToken.get(token);
    const now = Date.now();
    if (this.sessionHeld) {
      if (!lock || !this.sessionHeld(lock, now)) throw brokerErrors.sessionLockLost(lock?.message.sessionId ?? '');
      return lock;
    }
    if (!lock || lock.until <= now) {
      if (lock) this.onExpired(lock);
      throw brokerErrors.lockLost();
    }
    return lock;
  }

  /** Locks `message` for `owner` until `until`; with `expires` the lock ends by itself then. */
  take(message: StoredMessage, owner: string | undefined, until: number, expires: boolean): MessageLock {
    const lock: MessageLock = { token: newLockToken(), until, owner, message, priorDeliveries: message.deliveryCount };
    this.byToken.set(lock.token, lock);
    if (expires) this.armExpiry(lock);
    return lock;
  }

  /** Moves a lock's expiry to `until`. */
  extend(lock: MessageLock, until: number): void {
    lock.until = until;
    this.armExpiry(lock);
  }

  private armExpiry(lock: MessageLock): void {
    const until = lock.until;
    // Timers are never cancelled: a renewed or settled lock is recognised here and left alone.
    this.timers.at(until, () => {
      if (this.byToken.get(lock.token) === lock && lock.until === until) this.onExpired(lock);
    });
  }

  /** The lock of a token, live or not. */
  find(token: string): MessageLock | undefined {
    return this.byToken.get(token);
  }

  /** Forgets a lock (settled or released). */
  drop(lock: MessageLock): void {
    this.byToken.delete(lock.token);
  }

  /** Forgets every lock (the entity is being deleted). */
  clear(): void {
    this.byToken.clear();
  }

  /** Locks `owner` holds. */
  heldBy(owner: string): MessageLock[] {
    return [...this.byToken.values()].filter((l) => l.owner === owner);
  }

  /** Locks `owner` holds on messages of `sessionId`, by sequence number. */
  heldInSession(owner: string, sessionId: string): MessageLock[] {
    return this.heldBy(owner)
      .filter((l) => l.message.sessionId === sessionId)
      .sort((a, b) => a.message.sequenceNumber - b.message.sequenceNumber);
  }
}
