import type { EntityMeta, EntitySettings } from '../config.js';
import type { MessageStore } from '../store/messageStore.js';
import { DuplicateDetection } from './duplicateDetection.js';
import { EntityLog } from './entityLog.js';
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
  readonly duplicates: DuplicateDetection;
  /** By lower-cased name, in creation order. */
  readonly subscriptions = new Map<string, Subscription>();

  constructor(
    readonly name: string,
    public settings: EntitySettings,
    public meta: EntityMeta,
    store: MessageStore,
  ) {
    this.duplicates = new DuplicateDetection(settings, new EntityLog(store, name));
  }

  /** Applies changed settings (the management API's update). */
  reconfigure(settings: EntitySettings, meta: EntityMeta): void {
    this.settings = settings;
    this.meta = meta;
    this.duplicates.reconfigure(settings);
  }

  /** The copies of `p` each subscription takes. */
  targets(p: ParsedMessage, now: number): Delivery[] {
    const out: Delivery[] = [];
    for (const s of this.subscriptions.values()) for (const message of s.rules.route(p, now)) out.push({ entity: s.entity, message });
    return out;
  }
}
