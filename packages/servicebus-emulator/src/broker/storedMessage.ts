import type { WireSections } from './wireMessage.js';

/** Where a message currently is inside its entity. */
type MessagePlace = 'available' | 'locked' | 'deferred' | 'scheduled' | 'gone';

/** `x-opt-message-state`: 0 active, 1 deferred, 2 scheduled. */
export type MessageStateCode = 0 | 1 | 2;

/** A message held by an entity. */
export interface StoredMessage {
  sequenceNumber: number;
  messageId: string;
  sessionId: string | undefined;
  /** Epoch ms the message became (or will become) active. */
  enqueuedTime: number;
  /** Epoch ms after which it expires; `Infinity` when never. */
  expiresAt: number;
  /** Time to live requested by the sender (header ttl), ms. */
  ttlMs: number | undefined;
  /** Deliveries made so far (the header `delivery-count` of the next delivery). */
  deliveryCount: number;
  /** Deferred messages stay deferred when their lock is released. */
  deferred: boolean;
  /** It came in scheduled: Azure reports such a message's state as Scheduled even once it is active. */
  scheduled: boolean;
  place: MessagePlace;
  deadLetterSource: string | undefined;
  sections: WireSections;
  size: number;
}

/** A peek-lock held on a message. */
export interface MessageLock {
  token: string;
  until: number;
  /** Id of the consumer (link) that received it, if any. */
  owner: string | undefined;
  message: StoredMessage;
  /** The header `delivery-count` of this delivery: attempts made before it. */
  priorDeliveries: number;
  /**
   * A deferred message received by sequence number: the attempt is counted only if the lock is given back
   * (abandoned or deferred again), so a message dead-lettered or completed from there keeps its count, as on Azure.
   */
  countsOnRelease?: boolean;
}

/** What an enqueue takes over from where the message was before (dead-lettering, forwarding). */
export interface EnqueueExtra {
  deadLetterSource?: string;
  deliveryCount?: number;
  enqueuedTime?: number;
}

/** A message received by sequence number, with its lock in peekLock mode. */
export interface ReceivedDeferred {
  message: StoredMessage;
  lock?: MessageLock;
}

/** State code of a message for `x-opt-message-state`. */
export function stateCode(m: StoredMessage): MessageStateCode {
  if (m.place === 'scheduled') return 2;
  if (m.deferred) return 1;
  return m.scheduled ? 2 : 0;
}
