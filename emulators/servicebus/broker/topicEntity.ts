import type { EntityMeta, EntitySettings } from '../config.js';
import { DedupWindow } from './dedupWindow.js';
import type { QueueEntity } from './queueEntity.js';
import type { RuleSet } from './ruleSet.js';
import type { ParsedMessage } from './wireMessage.js';

/** A subscription: its queue-like entity and its rules. */
export interface Subscription {
  readonly name: string;
  readonly entity: QueueEntity;
  readonly rules: RuleSet;
  meta: EntityMeta;
}

/** One copy of a message bound for a subscription. */
export interface Delivery {
  readonly entity: QueueEntity;
  readonly message: ParsedMessage;
}

/** A topic: duplicate detection at the topic, then a copy to every subscription whose rules select it. */
export class TopicEntity {
  private readonly dedup: DedupWindow;
  /** By lower-cased name, in creation order. */
  readonly subscriptions = new Map<string, Subscription>();

  constructor(
    readonly name: string,
    public settings: EntitySettings,
    public meta: EntityMeta,
  ) {
    this.dedup = new DedupWindow(settings.duplicateDetectionWindowMs);
  }

  /** Applies changed settings (the management API's update). */
  reconfigure(settings: EntitySettings, meta: EntityMeta): void {
    this.settings = settings;
    this.meta = meta;
    this.dedup.windowMs = settings.duplicateDetectionWindowMs;
  }

  /** Whether `messageId` was recorded inside the window (always false when detection is off). */
  seenRecently(messageId: string, now: number): boolean {
    return this.settings.requiresDuplicateDetection && this.dedup.seen(messageId, now);
  }

  /** Records `messageId` once its message is accepted. */
  recordId(messageId: string, now: number): void {
    if (this.settings.requiresDuplicateDetection) this.dedup.add(messageId, now);
  }

  /** The copies of `p` each subscription takes. */
  targets(p: ParsedMessage, now: number): Delivery[] {
    const out: Delivery[] = [];
    for (const s of this.subscriptions.values()) for (const message of s.rules.route(p, now)) out.push({ entity: s.entity, message });
    return out;
  }
}
