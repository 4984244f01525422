import type { BrokerError } from '../errors/brokerError.js';
import { brokerErrors } from '../errors/brokerError.js';
import type { Consumer } from './consumer.js';
import type { SeqQueue } from './seqQueue.js';
import type { MessageLock, StoredMessage } from './storedMessage.js';
import { SessionTable } from './sessionTable.js';
import type { SessionEntry } from './sessionTable.js';
import type { TimerQueue } from './timerQueue.js';

/**
 * What the session coordinator asks of its entity. The entity owns messages, their locks and its receiving links;
 * the coordinator owns who holds which session until when, and calls back through this interface only.
 */
export interface SessionHost {
  /** The entity's lock duration, ms: a session lock lasts as long. */
  readonly lockDurationMs: number;
  /** Delivers what is available to links with credit (after a session changed hands). */
  pump(): void;
  /** Message locks `owner` holds on messages of `sessionId`, by sequence number. */
  locksInSession(owner: string, sessionId: string): MessageLock[];
  /** Gives a message lock back unsettled: the message returns to its session's queue. */
  unlock(lock: MessageLock): void;
  /** The receiving link with this id, if still attached. */
  consumerById(id: string): Consumer | undefined;
}

/** Result of accepting a session. */
export interface AcceptedSession {
  sessionId: string;
  lockedUntil: number;
}

interface Waiter {
  consumer: Consumer;
  done: (r: AcceptedSession | BrokerError) => void;
  timer: NodeJS.Timeout;
}

/** Summary of one session for stats and listings. */
export interface SessionInfo {
  id: string;
  depth: number;
  holder: string | undefined;
  lockedUntil: number | undefined;
  hasState: boolean;
}

/**
 * Session locks of one entity: accept a named or the next free session, hold "next session" requests until
 * one frees up, expire locks (taking the message locks with them) and hand unsettled messages back in order.
 */
export class SessionCoordinator {
  private readonly table = new SessionTable();
  private waiters: Waiter[] = [];
  private returning = false;

  constructor(
    private readonly host: SessionHost,
    private readonly timers: TimerQueue,
  ) {}

  /** A message of `sessionId` is now held by the entity, in any state. */
  countIn(sessionId: string): void {
    this.table.get(sessionId).count++;
  }

  /** A message of `sessionId` left the entity; a session left with nothing is forgotten. */
  countOut(sessionId: string): void {
    const e = this.table.get(sessionId);
    e.count--;
    this.table.prune(e);
  }

  /** Queues an available message in its session (by sequence number) and offers the session to a waiting request. */
  makeAvailable(m: StoredMessage): void {
    const id = m.sessionId ?? '';
    this.table.get(id).queue.insert(m);
    this.onAvailable(id);
  }

  /** The available messages `consumer` may take: those of the session it holds, while it holds it. */
  queueOf(consumer: Consumer): SeqQueue | undefined {
    if (consumer.sessionId === undefined || !this.holds(consumer.sessionId, consumer.id)) return undefined;
    return this.table.get(consumer.sessionId).queue;
  }

  /** Who holds the session's lock and until when (a message lock in a session lasts as its session's). */
  lockOf(sessionId: string): { holder: string | undefined; until: number } {
    const e = this.table.get(sessionId);
    return { holder: e.holder, until: e.until };
  }

  /** Held "next session" requests (for stats and tests). */
  get waiting(): number {
    return this.waiters.length;
  }

  /** Whether `owner` holds a live lock on the session. */
  holds(sessionId: string, owner: string | undefined, now = Date.now()): boolean {
    const e = this.table.find(sessionId);
    return e !== undefined && owner !== undefined && e.holder === owner && e.until > now;
  }

  /**
   * Locks `sessionId` (or, when undefined, the next session with messages) for `consumer`. With no session
   * free, waits up to `timeoutMs`. Returns a function that cancels the wait.
   */
  accept(
    sessionId: string | undefined,
    consumer: Consumer,
    timeoutMs: number,
    done: (r: AcceptedSession | BrokerError) => void,
  ): () => void {
    const now = Date.now();
    if (sessionId !== undefined) {
      const e = this.table.get(sessionId);
      if (this.table.isLocked(e, now) && e.holder !== consumer.id) {
        done(brokerErrors.sessionCannotBeLocked(sessionId));
      } else {
        done(this.lockFor(e, consumer));
      }
      return () => {};
    }
    const free = this.table.pickNext(now);
    if (free) {
      done(this.lockFor(free, consumer));
      return () => {};
    }
    const waiter: Waiter = {
      consumer,
      done,
      timer: setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        done(brokerErrors.noSession(timeoutMs));
      }, timeoutMs),
    };
    this.waiters.push(waiter);
    return () => {
      clearTimeout(waiter.timer);
      this.waiters = this.waiters.filter((w) => w !== waiter);
    };
  }

  private lockFor(e: SessionEntry, c: Consumer): AcceptedSession {
    // A lock that ran out before its expiry timer fired is taken over here: the session changes hands first, so
    // the old holder's messages come back under the new lock and no waiting request is handed the same session.
    const previous = e.holder !== undefined && e.holder !== c.id ? e.holder : undefined;
    e.holder = c.id;
    e.until = Date.now() + this.host.lockDurationMs;
    e.lastUpdated = Date.now();
    c.sessionId = e.id;
    this.armExpiry(e);
    if (previous !== undefined) {
      this.returnLocks(previous, e);
      this.host.consumerById(previous)?.sessionLost(brokerErrors.sessionLockLost(e.id));
    }
    queueMicrotask(() => this.host.pump());
    return { sessionId: e.id, lockedUntil: e.until };
  }

  private armExpiry(e: SessionEntry): void {
    const { until, holder } = e;
    this.timers.at(until, () => {
      if (e.holder !== holder || e.until !== until || holder === undefined) return;
      const consumer = this.host.consumerById(holder);
      this.releaseEntry(e);
      consumer?.sessionLost(brokerErrors.sessionLockLost(e.id));
    });
  }

  /** A message became available in `sessionId`: a waiting "next session" request may take it. */
  private onAvailable(sessionId: string): void {
    // While a holder's messages go back one by one, the session is served once they all are (releaseEntry).
    if (this.waiters.length === 0 || this.returning) return;
    const e = this.table.get(sessionId);
    if (this.table.isLocked(e, Date.now())) return;
    this.serveWaiters();
  }

  private serveWaiters(): void {
    while (this.waiters.length > 0) {
      const free = this.table.pickNext(Date.now());
      if (!free) return;
      const w = this.waiters.shift() as Waiter;
      clearTimeout(w.timer);
      w.done(this.lockFor(free, w.consumer));
    }
  }

  /** Gives back every session `owner` holds (its link closed). */
  release(owner: string): void {
    for (const e of [...this.table.all()]) if (e.holder === owner) this.releaseEntry(e);
  }

  private releaseEntry(e: SessionEntry): void {
    const owner = e.holder;
    e.holder = undefined;
    e.until = 0;
    if (owner !== undefined) this.returnLocks(owner, e);
    this.table.prune(e);
    this.serveWaiters();
    this.host.pump();
  }

  /** Unsettled messages go back into the session queue by sequence number, so the next holder sees them in order. */
  private returnLocks(owner: string, e: SessionEntry): void {
    this.returning = true;
    try {
      for (const lock of this.host.locksInSession(owner, e.id)) this.host.unlock(lock);
    } finally {
      this.returning = false;
    }
  }

  /** Extends a held session lock and the message locks bound to it. */
  renew(sessionId: string): number {
    const e = this.table.find(sessionId);
    if (!e || e.holder === undefined || e.until <= Date.now()) throw brokerErrors.sessionLockLost(sessionId);
    e.until = Date.now() + this.host.lockDurationMs;
    for (const lock of this.host.locksInSession(e.holder, sessionId)) lock.until = e.until;
    this.armExpiry(e);
    return e.until;
  }

  /** Session state, or undefined. */
  getState(sessionId: string): Buffer | undefined {
    return this.table.find(sessionId)?.state;
  }

  /** Sets (or clears, with undefined) the session state. */
  setState(sessionId: string, state: Buffer | undefined): void {
    const e = this.table.get(sessionId);
    e.state = state;
    e.lastUpdated = Date.now();
    this.table.prune(e);
  }

  /** Whether a session is locked right now (for management calls that need the lock). */
  requireLocked(sessionId: string): void {
    const e = this.table.find(sessionId);
    if (!e || !this.table.isLocked(e, Date.now())) throw brokerErrors.sessionLockLost(sessionId);
  }

  /** Every known session. */
  list(): SessionInfo[] {
    const now = Date.now();
    return [...this.table.all()].map((e) => ({
      id: e.id,
      depth: e.count,
      holder: this.table.isLocked(e, now) ? e.holder : undefined,
      lockedUntil: this.table.isLocked(e, now) ? e.until : undefined,
      hasState: e.state !== undefined,
    }));
  }

  /** Cancels all held "next session" requests (shutdown). */
  close(): void {
    for (const w of this.waiters) clearTimeout(w.timer);
    this.waiters = [];
  }
}
