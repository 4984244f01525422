import type { CorrelationFilter, EntitySettings } from '../config.js';
import { DedupWindow } from './dedupWindow.js';
import type { QueueEntity } from './queueEntity.js';
import type { FilterFields } from './wireMessage.js';

/** A subscription with its correlation filters (none = all messages). */
export interface Subscription {
  readonly entity: QueueEntity;
  readonly filters: readonly CorrelationFilter[];
}

/** A topic: duplicate detection at the topic, then a copy to every subscription whose filter matches. */
export class TopicEntity {
  private readonly dedup: DedupWindow;

  constructor(
    readonly name: string,
    readonly settings: EntitySettings,
    readonly subscriptions: readonly Subscription[],
  ) {
    this.dedup = new DedupWindow(settings.duplicateDetectionWindowMs);
  }

  /** Whether `messageId` repeats inside the window (records it when not). */
  isDuplicate(messageId: string, now: number): boolean {
    if (!this.settings.requiresDuplicateDetection) return false;
    if (this.dedup.seen(messageId, now)) return true;
    this.dedup.add(messageId, now);
    return false;
  }

  /** Subscriptions that receive a message with these fields. */
  targets(f: FilterFields): QueueEntity[] {
    return this.subscriptions.filter((s) => s.filters.length === 0 || s.filters.some((c) => matches(c, f))).map((s) => s.entity);
  }
}

/** Correlation filter semantics: every field the filter sets must equal the message's value. */
export function matches(c: CorrelationFilter, f: FilterFields): boolean {
  const pairs: [string | undefined, string | undefined][] = [
    [c.contentType, f.contentType], [c.correlationId, f.correlationId], [c.label, f.label], [c.messageId, f.messageId],
    [c.replyTo, f.replyTo], [c.replyToSessionId, f.replyToSessionId], [c.sessionId, f.sessionId], [c.to, f.to],
  ];
  if (pairs.some(([want, got]) => want !== undefined && want !== got)) return false;
  return Object.entries(c.properties).every(([k, v]) => f.appProps[k] === v);
}
