import type { EntityMeta, EntitySettings } from '../config.js';
import { brokerErrors } from '../errors/brokerError.js';
import type { MessageStore, StoreRecord } from '../store/messageStore.js';
import { serializeMessage } from '../store/messageStore.js';
import type { Consumer, ReceiveMode, Settlement } from './consumer.js';
import { DedupWindow } from './dedupWindow.js';
import { newLockToken } from './lockToken.js';
import { SeqQueue } from './seqQueue.js';
import { SessionCoordinator } from './sessionCoordinator.js';
import type { MessageLock, StoredMessage } from './storedMessage.js';
import type { TimerQueue } from './timerQueue.js';
import { mergeAppProps } from './wireMessage.js';
import type { ParsedMessage, TypedProps } from './wireMessage.js';

/** What an entity needs from the broker around it. */
export interface EntityContext {
  readonly timers: TimerQueue;
  readonly store: MessageStore;
  /** Moves a message out of `from` into its dead-letter destination. */
  deadLetter(from: QueueEntity, m: StoredMessage, reason: string | undefined, description: string | undefined): void;
}

/** Kind of entity: a queue, a topic subscription, or the dead-letter sub-queue of either. */
export type EntityKind = 'queue' | 'subscription' | 'deadletter';

/** What an enqueue takes over from where the message was before (dead-lettering, forwarding). */
export interface EnqueueExtra {
  deadLetterSource?: string;
  deliveryCount?: number;
  enqueuedTime?: number;
}

/** Per-entity counts for the admin port. */
export interface EntityCounts {
  active: number;
  locked: number;
  scheduled: number;
  deferred: number;
}

/**
 * One queue-like entity: FIFO by sequence number, peek-locks, deferral, scheduling, TTL, duplicate detection,
 * and (when `requiresSession`) per-session FIFO through a {@link SessionCoordinator}.
 */
export class QueueEntity {
  /** Dead-letter sub-queue (`<name>/$DeadLetterQueue`); absent on a dead-letter queue itself. */
  dlq: QueueEntity | undefined;
  readonly sessions: SessionCoordinator | undefined;
  private nextSeq = 1;
  private readonly messages = new Map<number, StoredMessage>();
  private readonly queue = new SeqQueue();
  private readonly locks = new Map<string, MessageLock>();
  private readonly consumers: Consumer[] = [];
  private readonly dedup: DedupWindow;
  private rr = 0;
  private pumping = false;

  /** Management-API facts (creation time, user metadata); set by the broker. */
  meta: EntityMeta | undefined;

  constructor(
    readonly name: string,
    public settings: EntitySettings,
    readonly kind: EntityKind,
    private readonly ctx: EntityContext,
  ) {
    this.dedup = new DedupWindow(settings.duplicateDetectionWindowMs);
    if (settings.requiresSession) this.sessions = new SessionCoordinator(this, ctx.timers);
  }

  /**
   * Applies changed settings (the management API's update): later locks, expiries and duplicate checks use
   * them. `requiresSession` cannot change, as on Azure; the caller refuses that first.
   */
  reconfigure(settings: EntitySettings): void {
    this.settings = settings;
    this.dedup.windowMs = settings.duplicateDetectionWindowMs;
  }

  /** Deletes every message (the entity is being deleted) and detaches its receivers with EntityNotFound. */
  purge(): void {
    for (const m of [...this.messages.values()]) this.remove(m);
    this.locks.clear();
    for (const c of [...this.consumers]) c.sessionLost(brokerErrors.entityNotFound(this.name));
    this.consumers.length = 0;
  }

  /** Bytes held: the encoded size of every message, as the management API's `SizeInBytes`. */
  sizeInBytes(): number {
    let n = 0;
    for (const m of this.messages.values()) n += m.size;
    return n;
  }

  /** Writes a change to a durable store; the record is only built when something will keep it. */
  private record(build: () => StoreRecord): void {
    if (this.ctx.store.durable) this.ctx.store.append(build());
  }

  /** Lock duration, ms. */
  get lockDurationMs(): number {
    return this.settings.lockDurationMs;
  }

  /** Whether `messageId` was recorded inside the duplicate-detection window (always false when detection is off). */
  seenRecently(messageId: string, now: number): boolean {
    return this.settings.requiresDuplicateDetection && this.dedup.seen(messageId, now);
  }

  /**
   * Writes `messageId`'s duplicate-detection entry to the log together with its send's messages, so the write that
   * makes the send durable carries both: after a restart a message that survived is never accepted a second time.
   */
  logId(messageId: string, now: number): void {
    if (!this.settings.requiresDuplicateDetection) return;
    this.record(() => ({ t: 'dup', e: this.name, id: messageId, at: now }));
  }

  /** Takes back a {@link logId} of a send whose write failed: the client's retry must not be a duplicate. */
  unlogId(messageId: string, at: number): void {
    if (!this.settings.requiresDuplicateDetection) return;
    this.record(() => ({ t: 'undup', e: this.name, id: messageId, at }));
  }

  /** Counts `messageId` as seen for duplicate detection: only once its message is durably accepted. */
  recordId(messageId: string, now: number): void {
    if (this.settings.requiresDuplicateDetection) this.dedup.add(messageId, now);
  }

  /** Replays a duplicate-detection entry from the log. */
  restoreDedup(messageId: string, at: number): void {
    this.dedup.add(messageId, at);
  }

  /** Builds and admits a message. */
  enqueue(p: ParsedMessage, now: number, extra: EnqueueExtra = {}): StoredMessage {
    const m = this.prepare(p, now, extra);
    this.admit(m);
    return m;
  }

  /**
   * Builds a message and writes it to the store without making it visible: a send's messages are admitted together
   * ({@link admitPrepared}) once the store has them, or {@link discard}ed when the write failed.
   */
  prepare(p: ParsedMessage, now: number, extra: EnqueueExtra = {}): StoredMessage {
    const scheduled = p.scheduledEnqueueTime !== undefined && p.scheduledEnqueueTime > now ? p.scheduledEnqueueTime : undefined;
    const m: StoredMessage = {
      sequenceNumber: this.nextSeq++,
      messageId: p.messageId,
      sessionId: this.settings.requiresSession ? (p.sessionId ?? '') : p.sessionId,
      enqueuedTime: scheduled ?? extra.enqueuedTime ?? now,
      expiresAt: Infinity,
      ttlMs: p.ttlMs,
      deliveryCount: extra.deliveryCount ?? 0,
      deferred: false,
      place: scheduled !== undefined ? 'scheduled' : 'available',
      deadLetterSource: extra.deadLetterSource,
      sections: p.sections,
      size: p.size,
    };
    m.expiresAt = this.expiryFor(m);
    this.record(() => ({ t: 'put', e: this.name, m: serializeMessage(m) }));
    return m;
  }

  /** Makes a {@link prepare}d message visible. */
  admitPrepared(m: StoredMessage): void {
    this.admit(m);
  }

  /** Drops a {@link prepare}d message that was never admitted, and takes it back out of the store. */
  discard(m: StoredMessage): void {
    m.place = 'gone';
    this.record(() => ({ t: 'del', e: this.name, s: m.sequenceNumber }));
  }

  /** Adds a message rebuilt from the log (locks are not persisted: it comes back unlocked). */
  restore(m: StoredMessage): void {
    this.nextSeq = Math.max(this.nextSeq, m.sequenceNumber + 1);
    this.admit(m);
  }

  private expiryFor(m: StoredMessage): number {
    if (this.kind === 'deadletter') return Infinity;
    const ttl = Math.min(m.ttlMs ?? Infinity, this.settings.defaultTtlMs);
    return m.enqueuedTime + ttl;
  }

  private admit(m: StoredMessage): void {
    this.messages.set(m.sequenceNumber, m);
    if (m.sessionId !== undefined && this.sessions) this.sessions.entry(m.sessionId).count++;
    if (m.place === 'scheduled') {
      this.ctx.timers.at(m.enqueuedTime, () => this.activate(m));
      return;
    }
    if (m.place === 'deferred') m.deferred = true;
    this.ctx.timers.at(m.expiresAt, () => this.expireIfIdle(m));
    if (m.place === 'available') this.makeAvailable(m);
  }

  private activate(m: StoredMessage): void {
    if (m.place !== 'scheduled') return;
    m.place = 'available';
    m.expiresAt = this.expiryFor(m);
    this.record(() => ({ t: 'upd', e: this.name, s: m.sequenceNumber, pl: 'available', ex: Number.isFinite(m.expiresAt) ? m.expiresAt : null }));
    this.ctx.timers.at(m.expiresAt, () => this.expireIfIdle(m));
    this.makeAvailable(m);
  }

  private makeAvailable(m: StoredMessage): void {
    m.place = 'available';
    if (this.sessions && m.sessionId !== undefined) {
      this.sessions.entry(m.sessionId).queue.insert(m);
      this.sessions.onAvailable(m.sessionId);
    } else {
      this.queue.insert(m);
    }
    this.pump();
  }

  private expireIfIdle(m: StoredMessage): void {
    if ((m.place === 'available' || m.place === 'deferred') && m.expiresAt <= Date.now()) this.expire(m);
  }

  private expire(m: StoredMessage): void {
    if (this.settings.deadLetteringOnMessageExpiration) {
      this.ctx.deadLetter(this, m, 'TTLExpiredException', 'The message expired and was dead lettered.');
    } else {
      this.remove(m);
    }
  }

  /** Removes a message for good. */
  remove(m: StoredMessage): void {
    if (m.place === 'gone') return;
    m.place = 'gone';
    this.messages.delete(m.sequenceNumber);
    this.record(() => ({ t: 'del', e: this.name, s: m.sequenceNumber }));
    if (this.sessions && m.sessionId !== undefined) {
      const e = this.sessions.entry(m.sessionId);
      e.count--;
      this.sessions.prune(e);
    }
  }

  /** Registers a receiving link. */
  addConsumer(c: Consumer): void {
    this.consumers.push(c);
  }

  /**
   * Unregisters a receiving link; a session consumer gives its session back. Service Bus ends the locks of a link
   * that detaches (its messages can no longer be settled), so what the link still held unsettled — prefetched or in
   * hand — is available again at once, its delivery counted, instead of after the lock duration.
   */
  removeConsumer(c: Consumer): void {
    const i = this.consumers.indexOf(c);
    if (i >= 0) this.consumers.splice(i, 1);
    if (this.sessions) {
      this.sessions.release(c.id);
      return;
    }
    const held = [...this.locks.values()].filter((l) => l.owner === c.id);
    for (const lock of held) this.unlock(lock, undefined);
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
          const c = this.consumers[(this.rr + n) % this.consumers.length] as Consumer;
          if (c.credit() <= 0) continue;
          const m = this.next(c);
          if (!m) continue;
          this.rr = (this.rr + n + 1) % this.consumers.length;
          this.deliver(c, m);
          progress = true;
          break;
        }
      }
    } finally {
      this.pumping = false;
    }
  }

  private next(c: Consumer): StoredMessage | undefined {
    let q: SeqQueue;
    if (this.sessions) {
      if (c.sessionId === undefined || !this.sessions.holds(c.sessionId, c.id)) return undefined;
      q = this.sessions.entry(c.sessionId).queue;
    } else {
      q = this.queue;
    }
    const now = Date.now();
    for (let m = q.shift(); m; m = q.shift()) {
      if (m.expiresAt <= now) {
        this.expire(m);
        continue;
      }
      return m;
    }
    return undefined;
  }

  private deliver(c: Consumer, m: StoredMessage): void {
    if (c.mode === 'receiveAndDelete') {
      this.remove(m);
      c.deliver(m, undefined);
      return;
    }
    const lock = this.lock(m, c.id);
    c.deliver(m, lock);
  }

  /** Locks a message for `owner` and counts the delivery. */
  lock(m: StoredMessage, owner: string | undefined): MessageLock {
    const until = this.sessions && m.sessionId !== undefined ? this.sessions.entry(m.sessionId).until : Date.now() + this.lockDurationMs;
    const lock: MessageLock = { token: newLockToken(), until, owner, message: m, priorDeliveries: m.deliveryCount };
    m.place = 'locked';
    this.locks.set(lock.token, lock);
    m.deliveryCount++;
    this.record(() => ({ t: 'upd', e: this.name, s: m.sequenceNumber, dc: m.deliveryCount }));
    if (!this.sessions) this.ctx.timers.at(until, () => this.lockExpired(lock.token, until));
    return lock;
  }

  private lockExpired(token: string, until: number): void {
    const lock = this.locks.get(token);
    if (lock && lock.until === until) this.unlock(lock, undefined);
  }

  /** Releases a lock without settling: back in line, or to the DLQ once MaxDeliveryCount is reached. */
  unlock(lock: MessageLock, props: TypedProps | undefined): void {
    this.locks.delete(lock.token);
    const m = lock.message;
    if (m.place !== 'locked') return;
    if (props && props.size > 0) this.editProps(m, props);
    if (m.deliveryCount >= this.settings.maxDeliveryCount && this.kind !== 'deadletter') {
      this.ctx.deadLetter(this, m, 'MaxDeliveryCountExceeded', `Message could not be consumed after ${this.settings.maxDeliveryCount} delivery attempts.`);
      return;
    }
    if (m.deferred) {
      m.place = 'deferred';
      return;
    }
    if (m.expiresAt <= Date.now()) {
      m.place = 'available';
      this.expire(m);
      return;
    }
    this.makeAvailable(m);
  }

  private editProps(m: StoredMessage, props: TypedProps): void {
    m.sections = { ...m.sections, appProps: mergeAppProps(m.sections.appProps, props) };
    this.record(() => ({ t: 'upd', e: this.name, s: m.sequenceNumber, ap: m.sections.appProps?.toString('base64') }));
  }

  /** The client released a delivery it never processed: unlock without counting the attempt. */
  release(token: string): void {
    const lock = this.locks.get(token);
    if (!lock) return;
    lock.message.deliveryCount = Math.max(0, lock.message.deliveryCount - 1);
    this.unlock(lock, undefined);
  }

  /** Finds a live lock; throws MessageLockLost (SessionLockLost for a session entity) otherwise. */
  liveLock(token: string): MessageLock {
    const lock = this.locks.get(token);
    const now = Date.now();
    if (this.sessions) {
      const sid = lock?.message.sessionId;
      if (!lock || sid === undefined || !this.sessions.holds(sid, lock.owner, now)) {
        throw brokerErrors.sessionLockLost(sid ?? '');
      }
      return lock;
    }
    if (!lock || lock.until <= now) {
      if (lock) this.unlock(lock, undefined);
      throw brokerErrors.lockLost();
    }
    return lock;
  }

  /** Settles a locked message. Throws a BrokerError when the lock is gone. */
  settle(token: string, s: Settlement): void {
    const lock = this.liveLock(token);
    const m = lock.message;
    switch (s.kind) {
      case 'complete':
        this.locks.delete(token);
        this.remove(m);
        return;
      case 'abandon':
        this.unlock(lock, s.props);
        return;
      case 'defer':
        this.locks.delete(token);
        if (s.props && s.props.size > 0) this.editProps(m, s.props);
        m.deferred = true;
        m.place = 'deferred';
        this.record(() => ({ t: 'upd', e: this.name, s: m.sequenceNumber, df: true, pl: 'deferred' }));
        return;
      case 'deadLetter':
        if (this.kind === 'deadletter') throw brokerErrors.invalid('A message in a dead-letter queue cannot be dead-lettered again.');
        this.locks.delete(token);
        if (s.props && s.props.size > 0) this.editProps(m, s.props);
        this.ctx.deadLetter(this, m, s.reason, s.description);
        return;
    }
  }

  /** Extends a message lock by the lock duration; returns the new expiry. */
  renewLock(token: string): number {
    const lock = this.liveLock(token);
    if (this.sessions) return lock.until;
    lock.until = Date.now() + this.lockDurationMs;
    const until = lock.until;
    this.ctx.timers.at(until, () => this.lockExpired(token, until));
    return until;
  }

  /** Locks (peekLock) or removes (receiveAndDelete) deferred messages by sequence number. */
  receiveDeferred(seqs: number[], mode: ReceiveMode, sessionId: string | undefined): { message: StoredMessage; lock?: MessageLock }[] {
    const out: { message: StoredMessage; lock?: MessageLock }[] = [];
    for (const seq of seqs) {
      const m = this.messages.get(seq);
      if (!m || m.place !== 'deferred' || (sessionId !== undefined && m.sessionId !== sessionId)) throw brokerErrors.messageNotFound(seq);
      if (mode === 'receiveAndDelete') {
        this.remove(m);
        out.push({ message: m });
      } else {
        // In a session entity the deferred message's lock belongs to the session's holder.
        const owner = this.sessions && m.sessionId !== undefined ? this.sessions.entry(m.sessionId).holder : undefined;
        out.push({ message: m, lock: this.lock(m, owner) });
      }
    }
    return out;
  }

  /** Messages from `from` on, in order, including deferred and scheduled, without locking. */
  peek(from: number, count: number, sessionId: string | undefined): StoredMessage[] {
    const out: StoredMessage[] = [];
    const seqs = [...this.messages.keys()].filter((s) => s >= from).sort((a, b) => a - b);
    for (const s of seqs) {
      const m = this.messages.get(s) as StoredMessage;
      if (sessionId !== undefined && m.sessionId !== sessionId) continue;
      out.push(m);
      if (out.length >= count) break;
    }
    return out;
  }

  /** Cancels scheduled messages; unknown numbers are ignored, as the service does. */
  cancelScheduled(seqs: number[]): void {
    for (const seq of seqs) {
      const m = this.messages.get(seq);
      if (m && m.place === 'scheduled') this.remove(m);
    }
  }

  /** The stored message with this sequence number. */
  get(seq: number): StoredMessage | undefined {
    return this.messages.get(seq);
  }

  /** Counts by state. */
  counts(): EntityCounts {
    const c: EntityCounts = { active: 0, locked: 0, scheduled: 0, deferred: 0 };
    for (const m of this.messages.values()) {
      if (m.place === 'scheduled') c.scheduled++;
      else if (m.place === 'deferred') c.deferred++;
      else {
        c.active++;
        if (m.place === 'locked') c.locked++;
      }
    }
    return c;
  }

  /** Lock tokens currently held by `owner` on messages of `sessionId`. */
  locksOf(owner: string, sessionId: string): MessageLock[] {
    const out: MessageLock[] = [];
    for (const l of this.locks.values()) if (l.owner === owner && l.message.sessionId === sessionId) out.push(l);
    return out.sort((a, b) => a.message.sequenceNumber - b.message.sequenceNumber);
  }

  /** Consumers bound to a session (for waking them after a lock). */
  consumerById(id: string): Consumer | undefined {
    return this.consumers.find((c) => c.id === id);
  }
}
