import type { MessageChanges, MessageStore, StoreRecord } from '../store/messageStore.js';
import { serializeMessage } from '../store/messageStore.js';
import type { StoredMessage } from './storedMessage.js';

/**
 * The changes of one entity as the store keeps them, one method per kind of change. A record is only built when
 * the store is durable, so an in-memory broker pays nothing for it.
 */
export class EntityLog {
  constructor(
    private readonly store: MessageStore,
    /** The entity's path, as the log names it. */
    private readonly entity: string,
  ) {}

  private write(build: () => StoreRecord): void {
    if (this.store.durable) this.store.append(build());
  }

  private update(m: StoredMessage, changes: () => MessageChanges): void {
    this.write(() => ({
      type: 'messageUpdated',
      entity: this.entity,
      sequenceNumber: m.sequenceNumber,
      changes: changes(),
    }));
  }

  /** A message was taken (not yet visible: it becomes so once the write is on disk). */
  messageStored(m: StoredMessage): void {
    this.write(() => ({ type: 'messageStored', entity: this.entity, message: serializeMessage(m) }));
  }

  /** A message left the entity for good (completed, expired, moved, discarded). */
  messageRemoved(m: StoredMessage): void {
    this.write(() => ({ type: 'messageRemoved', entity: this.entity, sequenceNumber: m.sequenceNumber }));
  }

  /** A delivery was counted. */
  deliveryCounted(m: StoredMessage): void {
    this.update(m, () => ({ deliveryCount: m.deliveryCount }));
  }

  /** A scheduled message became available, with its expiry counted from now. */
  activated(m: StoredMessage): void {
    this.update(m, () => ({ place: 'available', expiresAt: Number.isFinite(m.expiresAt) ? m.expiresAt : null }));
  }

  /** A settlement changed the message's application properties. */
  propertiesChanged(m: StoredMessage): void {
    this.update(m, () => ({ applicationProperties: m.sections.appProps?.toString('base64') }));
  }

  /** The message was deferred. */
  deferred(m: StoredMessage): void {
    this.update(m, () => ({ deferred: true, place: 'deferred' }));
  }

  /** A session's state was set (or cleared, with undefined). */
  sessionState(sessionId: string, state: Buffer | undefined): void {
    this.store.append({
      type: 'sessionState',
      entity: this.entity,
      sessionId,
      state: state ? state.toString('base64') : null,
    });
  }

  /** Duplicate detection remembers `messageId` from `at` on. */
  duplicateIdSeen(messageId: string, at: number): void {
    this.write(() => ({ type: 'duplicateIdSeen', entity: this.entity, messageId, at }));
  }

  /** Takes back a {@link duplicateIdSeen} whose send was never acknowledged. */
  duplicateIdWithdrawn(messageId: string, at: number): void {
    this.write(() => ({ type: 'duplicateIdWithdrawn', entity: this.entity, messageId, at }));
  }
}
