import type { EntityMeta, EntitySettings } from '../config.js';
import { brokerErrors } from '../errors/brokerError.js';
import type { MessageStore } from '../store/messageStore.js';
import type { Consumer, ReceiveMode, Settlement } from './consumer.js';
import { ConsumerRing } from './consumerRing.js';
import { DuplicateDetection } from './duplicateDetection.js';
import { EntityLog } from './entityLog.js';
import { MessageIndex } from './messageIndex.js';
import type { EntityCounts } from './messageIndex.js';
import { MessageLocks } from './messageLocks.js';
import { SeqQueue } from './seqQueue.js';
import { SessionCoordinator } from './sessionCoordinator.js';
import type { SessionHost } from './sessionCoordinator.js';
import type { EnqueueExtra, MessageLock, ReceivedDeferred, StoredMessage } from './storedMessage.js';
import type { TimerQueue } from './timerQueue.js';
import { mergeAppProps } from './wireMessage.js';
import type { ParsedMessage, TypedProps } from './wireMessage.js';

/** What an entity needs from the broker around it. */
export interface EntityContext {
  readonly timers: TimerQueue;
  readonly store: MessageStore;
  /** Moves a message out of `from` into its dead-letter destination. */
  deadLetter(
    from: QueueEntity,
    message: StoredMessage,
    reason: string | undefined,
    description: string | undefined,
  ): void;
}

/** Kind of entity: a queue, a topic subscription, or the dead-letter sub-queue of either. */
export type EntityKind = 'queue' | 'subscription' | 'deadletter';

/**
 * One queue-like entity: FIFO by sequence number, peek-locks, deferral, scheduling, TTL and MaxDeliveryCount.
 * Its parts each live in one place: {@link DuplicateDetection}, {@link MessageLocks}, the {@link ConsumerRing} that
 * serves its receiving links, the {@link EntityLog} of its changes and, when `requiresSession`, the
 * {@link SessionCoordinator}, which calls back only through {@link SessionHost}.
 */
export class QueueEntity implements SessionHost {
  /** Dead-letter sub-queue (`<name>/$DeadLetterQueue`); absent on a dead-letter queue itself. */
  dlq: QueueEntity | undefined;
  readonly sessions: SessionCoordinator | undefined;
  readonly duplicates: DuplicateDetection;
  /** Management-API facts (creation time, user metadata); set by the broker. */
  meta: EntityMeta | undefined;
  /** Epoch ms of the last send, receive or management operation: `AutoDeleteOnIdle` counts from it. */
  lastActivity = Date.now();
  private nextSequenceNumber = 1;
  private readonly messages = new MessageIndex();
  /** Available messages of a session-less entity (a session entity keeps one queue per session). */
  private readonly available = new SeqQueue();
  private readonly locks: MessageLocks;
  private readonly consumers: ConsumerRing;
  private readonly log: EntityLog;

  constructor(
    readonly name: string,
    public settings: EntitySettings,
    readonly kind: EntityKind,
    private readonly context: EntityContext,
  ) {
    this.log = new EntityLog(context.store, name);
    this.duplicates = new DuplicateDetection(settings, this.log);
    const sessionHeld = (lock: MessageLock, now: number): boolean =>
      lock.message.sessionId !== undefined &&
      this.sessions !== undefined &&
      this.sessions.holds(lock.message.sessionId, lock.owner, now);
    this.locks = new MessageLocks(
      context.timers,
      (lock) => this.unlock(lock),
      settings.requiresSession ? sessionHeld : undefined,
    );
    this.consumers = new ConsumerRing({ nextFor: (c) => this.nextFor(c), handOver: (c, m) => this.handOver(c, m) });
    if (settings.requiresSession) this.sessions = new SessionCoordinator(this, context.timers);
  }

  /**
   * Applies changed settings (the management API's update): later locks, expiries and duplicate checks use
   * them. `requiresSession` cannot change, as on Azure; the caller refuses that first.
   */
  reconfigure(settings: EntitySettings): void {
    this.settings = settings;
    this.duplicates.reconfigure(settings);
  }

  /** Deletes every message (the entity is being deleted) and detaches its receivers with EntityNotFound. */
  purge(): void {
    for (const m of this.messages.all()) this.remove(m);
    this.locks.clear();
    for (const c of this.consumers.takeAll()) c.sessionLost(brokerErrors.entityNotFound(this.name));
  }

  /** Bytes held: the encoded size of every message, as the management API's `SizeInBytes`. */
  sizeInBytes(): number {
    return this.messages.sizeInBytes();
  }

  /** Lock duration, ms. */
  get lockDurationMs(): number {
    return this.settings.lockDurationMs;
  }

  // ---- A message's way in: prepared, written, admitted (or discarded), then available or scheduled.

  /** Builds and admits a message at once (dead-lettering, scheduling through `$management`). */
  enqueue(parsed: ParsedMessage, now: number, extra: EnqueueExtra = {}): StoredMessage {
    const message = this.prepare(parsed, now, extra);
    this.admit(message);
    return message;
  }

  /**
   * Builds a message and writes it to the store without making it visible: a send's messages are admitted together
   * ({@link admitPrepared}) once the store has them, or {@link discard}ed when the write failed.
   */
  prepare(parsed: ParsedMessage, now: number, extra: EnqueueExtra = {}): StoredMessage {
    const scheduledFor =
      parsed.scheduledEnqueueTime !== undefined && parsed.scheduledEnqueueTime > now
        ? parsed.scheduledEnqueueTime
        : undefined;
    const message: StoredMessage = {
      sequenceNumber: this.nextSequenceNumber++,
      messageId: parsed.messageId,
      sessionId: this.settings.requiresSession ? (parsed.sessionId ?? '') : parsed.sessionId,
      enqueuedTime: scheduledFor ?? extra.enqueuedTime ?? now,
      expiresAt: Infinity,
      ttlMs: parsed.ttlMs,
      deliveryCount: extra.deliveryCount ?? 0,
      deferred: false,
      scheduled: scheduledFor !== undefined,
      place: scheduledFor !== undefined ? 'scheduled' : 'available',
      deadLetterSource: extra.deadLetterSource,
      sections: parsed.sections,
      size: parsed.size,
    };
    message.expiresAt = this.expiryOf(message);
    this.log.messageStored(message);
    return message;
  }

  /** Makes a {@link prepare}d message visible. */
  admitPrepared(message: StoredMessage): void {
    this.admit(message);
  }

  /** Drops a {@link prepare}d message that was never admitted, and takes it back out of the store. */
  discard(message: StoredMessage): void {
    message.place = 'gone';
    this.log.messageRemoved(message);
  }

  /** Adds a message rebuilt from the log (locks are not persisted: it comes back unlocked). */
  restore(message: StoredMessage): void {
    this.nextSequenceNumber = Math.max(this.nextSequenceNumber, message.sequenceNumber + 1);
    this.admit(message);
  }

  private expiryOf(m: StoredMessage): number {
    if (this.kind === 'deadletter') return Infinity;
    return m.enqueuedTime + Math.min(m.ttlMs ?? Infinity, this.settings.defaultTtlMs);
  }

  private admit(m: StoredMessage): void {
    this.messages.add(m);
    this.sessions?.countIn(m.sessionId ?? '');
    if (m.place === 'scheduled') {
      this.context.timers.at(m.enqueuedTime, () => this.activate(m));
      return;
    }
    if (m.place === 'deferred') m.deferred = true;
    this.context.timers.at(m.expiresAt, () => this.expireIfIdle(m));
    if (m.place === 'available') this.makeAvailable(m);
  }

  /** A scheduled message's time came: its time to live counts from now. */
  private activate(m: StoredMessage): void {
    if (m.place !== 'scheduled') return;
    m.place = 'available';
    m.expiresAt = this.expiryOf(m);
    this.log.activated(m);
    this.context.timers.at(m.expiresAt, () => this.expireIfIdle(m));
    this.makeAvailable(m);
  }

  private makeAvailable(m: StoredMessage): void {
    m.place = 'available';
    if (this.sessions) this.sessions.makeAvailable(m);
    else this.available.insert(m);
    this.pump();
  }

  // ---- Expiry and removal.

  private expireIfIdle(m: StoredMessage): void {
    if ((m.place === 'available' || m.place === 'deferred') && m.expiresAt <= Date.now()) this.expire(m);
  }

  private expire(m: StoredMessage): void {
    if (this.settings.deadLetteringOnMessageExpiration) {
      this.context.deadLetter(this, m, 'TTLExpiredException', 'The message expired and was dead lettered.');
    } else {
      this.remove(m);
    }
  }

  /** Removes a message for good. */
  remove(m: StoredMessage): void {
    if (m.place === 'gone') return;
    m.place = 'gone';
    this.messages.delete(m);
    this.log.messageRemoved(m);
    this.sessions?.countOut(m.sessionId ?? '');
  }

  // ---- Delivery to receiving links.

  /** Registers a receiving link. */
  addConsumer(c: Consumer): void {
    this.consumers.add(c);
  }

  /**
   * Unregisters a receiving link; a session consumer gives its session back. Service Bus ends the locks of a link
   * that detaches (its messages can no longer be settled), so what the link still held unsettled — prefetched or in
   * hand — is available again at once, its delivery counted, instead of after the lock duration.
   */
  removeConsumer(c: Consumer): void {
    this.consumers.remove(c);
    if (this.sessions) {
      this.sessions.release(c.id);
      return;
    }
    for (const lock of this.locks.heldBy(c.id)) this.unlock(lock);
  }

  /** Whether a receiver is attached or waits for a session: such an entity is never idle. */
  get busy(): boolean {
    return this.consumers.size > 0 || (this.sessions?.waiting ?? 0) > 0;
  }

  /** Delivers to every consumer with credit, round-robin, until messages or credit run out. */
  pump(): void {
    this.consumers.pump();
  }

  /** The receiving link with this id (the session coordinator tells it it lost its session). */
  consumerById(id: string): Consumer | undefined {
    return this.consumers.byId(id);
  }

  /** The next message `c` may take: from its session's queue in a session entity; expired ones go on the way. */
  private nextFor(c: Consumer): StoredMessage | undefined {
    const queue = this.sessions ? this.sessions.queueOf(c) : this.available;
    if (!queue) return undefined;
    const now = Date.now();
    for (let m = queue.shift(); m; m = queue.shift()) {
      if (m.expiresAt > now) return m;
      this.expire(m);
    }
    return undefined;
  }

  private handOver(c: Consumer, m: StoredMessage): void {
    this.lastActivity = Date.now();
    if (c.mode === 'receiveAndDelete') {
      this.remove(m);
      c.deliver(m, undefined);
      return;
    }
    c.deliver(m, this.lock(m, c.id));
  }

  // ---- Locks and settlement.

  /** Locks a message for `owner` and counts the delivery; in a session entity the lock lasts as the session's. */
  private lock(m: StoredMessage, owner: string | undefined, countNow = true): MessageLock {
    const until = this.sessions ? this.sessions.lockOf(m.sessionId ?? '').until : Date.now() + this.lockDurationMs;
    const lock = this.locks.take(m, owner, until, !this.sessions);
    m.place = 'locked';
    if (countNow) this.countDelivery(m);
    else lock.countsOnRelease = true;
    return lock;
  }

  private countDelivery(m: StoredMessage): void {
    m.deliveryCount++;
    this.log.deliveryCounted(m);
  }

  /** Message locks `owner` holds on messages of `sessionId`, by sequence number ({@link SessionHost}). */
  locksInSession(owner: string, sessionId: string): MessageLock[] {
    return this.locks.heldInSession(owner, sessionId);
  }

  /**
   * Releases a lock without settling: the message goes back in line (by sequence number), stays deferred, expires,
   * or goes to the DLQ once MaxDeliveryCount is reached. `props` are the abandon's property changes.
   */
  unlock(lock: MessageLock, props?: TypedProps): void {
    this.locks.drop(lock);
    const m = lock.message;
    if (m.place !== 'locked') return;
    if (lock.countsOnRelease) this.countDelivery(m);
    if (props && props.size > 0) this.editProperties(m, props);
    if (m.deliveryCount >= this.settings.maxDeliveryCount && this.kind !== 'deadletter') {
      this.context.deadLetter(
        this,
        m,
        'MaxDeliveryCountExceeded',
        `Message could not be consumed after ${this.settings.maxDeliveryCount} delivery attempts.`,
      );
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

  private editProperties(m: StoredMessage, props: TypedProps): void {
    m.sections = { ...m.sections, appProps: mergeAppProps(m.sections.appProps, props) };
    this.log.propertiesChanged(m);
  }

  /** The client released a delivery it never processed: unlock without counting the attempt. */
  release(token: string): void {
    const lock = this.locks.find(token);
    if (!lock) return;
    lock.message.deliveryCount = Math.max(0, lock.message.deliveryCount - 1);
    this.unlock(lock);
  }

  /** Settles a locked message. Throws a BrokerError when the lock is gone. */
  settle(token: string, settlement: Settlement): void {
    const lock = this.locks.live(token);
    this.lastActivity = Date.now();
    const m = lock.message;
    switch (settlement.kind) {
      case 'complete':
        this.locks.drop(lock);
        this.remove(m);
        return;
      case 'abandon':
        this.unlock(lock, settlement.props);
        return;
      case 'defer':
        this.locks.drop(lock);
        if (lock.countsOnRelease) this.countDelivery(m);
        if (settlement.props && settlement.props.size > 0) this.editProperties(m, settlement.props);
        m.deferred = true;
        m.place = 'deferred';
        this.log.deferred(m);
        return;
      case 'deadLetter':
        if (this.kind === 'deadletter')
          throw brokerErrors.invalid('A message in a dead-letter queue cannot be dead-lettered again.');
        this.locks.drop(lock);
        if (settlement.props && settlement.props.size > 0) this.editProperties(m, settlement.props);
        this.context.deadLetter(this, m, settlement.reason, settlement.description);
        return;
    }
  }

  /** Extends a message lock by the lock duration; returns the new expiry (a session entity's follows its session). */
  renewLock(token: string): number {
    const lock = this.locks.live(token);
    if (this.sessions) return lock.until;
    this.locks.extend(lock, Date.now() + this.lockDurationMs);
    return lock.until;
  }

  // ---- By sequence number: deferred messages, peek, scheduled cancellation.

  /** Locks (peekLock) or removes (receiveAndDelete) deferred messages by sequence number. */
  receiveDeferred(sequenceNumbers: number[], mode: ReceiveMode, sessionId: string | undefined): ReceivedDeferred[] {
    const out: ReceivedDeferred[] = [];
    for (const seq of sequenceNumbers) {
      const m = this.messages.get(seq);
      if (!m || m.place !== 'deferred' || (sessionId !== undefined && m.sessionId !== sessionId))
        throw brokerErrors.messageNotFound(seq);
      if (mode === 'receiveAndDelete') {
        this.remove(m);
        out.push({ message: m });
      } else {
        // In a session entity the deferred message's lock belongs to the session's holder.
        const owner = this.sessions?.lockOf(m.sessionId ?? '').holder;
        out.push({ message: m, lock: this.lock(m, owner, false) });
      }
    }
    return out;
  }

  /** Messages from `from` on, in order, including deferred and scheduled, without locking. */
  peek(from: number, count: number, sessionId: string | undefined): StoredMessage[] {
    return this.messages.peek(from, count, sessionId);
  }

  /** Cancels scheduled messages; unknown numbers are ignored, as the service does. */
  cancelScheduled(sequenceNumbers: number[]): void {
    for (const seq of sequenceNumbers) {
      const m = this.messages.get(seq);
      if (m && m.place === 'scheduled') this.remove(m);
    }
  }

  /** Counts by state. */
  counts(): EntityCounts {
    return this.messages.counts();
  }

  /** Sets (or clears) a session's state and logs it. */
  setSessionState(sessionId: string, state: Buffer | undefined): void {
    if (!this.sessions) throw brokerErrors.invalid(`${this.name} is not session-enabled.`);
    this.sessions.setState(sessionId, state);
    this.log.sessionState(sessionId, state);
  }
}
