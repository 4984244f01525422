import type { EntityMeta, EntitySettings } from '../config.js';
import type { MessageStore } from '../store/messageStore.js';
import { DuplicateDetection } from './duplicateDetection.js';
import { EntityLog } from './entityLog.js';
import type { QueueEntity } from './queueEntity.js';
import type { StoredMessage } from './storedMessage.js';
import type { RuleSet } from './ruleSet.js';
import { mergeAppProps, wrapProps } from './wireMessage.js';
import type { ParsedMessage } from './wireMessage.js';

/** The DeadLetterReason of a message a subscription's rule failed to evaluate. */
const FILTER_EVALUATION_REASON = 'FilterEvaluationException';

/** A subscription: its queue-like entity and its rules. */
export interface Subscription {
  readonly name: string;
  readonly entity: QueueEntity;
  readonly rules: RuleSet;
  meta: EntityMeta;
}

/** One copy of a message bound for a subscription (and, once scheduled there, the message it became). */
export interface Delivery {
  readonly entity: QueueEntity;
  readonly message: ParsedMessage;
  readonly stored?: StoredMessage;
}

/** A topic: duplicate detection at the topic, then a copy to every subscription whose rules select it. */
export class TopicEntity {
  readonly duplicates: DuplicateDetection;
  /** By lower-cased name, in creation order. */
  readonly subscriptions = new Map<string, Subscription>();
  /**
   * Messages scheduled on the topic, by the sequence number the topic gave them: the copies its subscriptions hold
   * as scheduled messages, so a cancellation reaches them all.
   */
  private readonly scheduled = new Map<number, Delivery[]>();
  private nextScheduledNumber = 1;
  /** Epoch ms of the last send or management operation: `AutoDeleteOnIdle` counts from it. */
  lastActivity: number;

  constructor(
    readonly name: string,
    public settings: EntitySettings,
    public meta: EntityMeta,
    store: MessageStore,
  ) {
    this.duplicates = new DuplicateDetection(settings, new EntityLog(store, name));
    this.lastActivity = meta.accessedAt ?? Date.now();
  }

  /** Whether a receiver is attached to one of its subscriptions: the topic is then not idle. */
  get busy(): boolean {
    for (const s of this.subscriptions.values()) if (s.entity.busy) return true;
    return false;
  }

  /** Applies changed settings (the management API's update). */
  reconfigure(settings: EntitySettings, meta: EntityMeta): void {
    this.settings = settings;
    this.meta = meta;
    this.duplicates.reconfigure(settings);
  }

  /** Remembers the copies a scheduled message made; returns the topic's sequence number for it. */
  addScheduled(copies: Delivery[]): number {
    const sequenceNumber = this.nextScheduledNumber++;
    this.scheduled.set(sequenceNumber, copies);
    return sequenceNumber;
  }

  /** The copies of a message scheduled on the topic, forgotten as they are handed out (cancellation). */
  takeScheduled(sequenceNumber: number): Delivery[] {
    const copies = this.scheduled.get(sequenceNumber) ?? [];
    this.scheduled.delete(sequenceNumber);
    return copies;
  }

  /** The copies of `p` each subscription takes. */
  targets(p: ParsedMessage, now: number): Delivery[] {
    const out: Delivery[] = [];
    for (const s of this.subscriptions.values()) {
      const { copies, failure } = s.rules.route(p, now);
      for (const message of copies) out.push({ entity: s.entity, message });
      // DeadLetteringOnFilterEvaluationExceptions: a message a rule failed to evaluate goes to the subscription's DLQ.
      if (failure !== undefined && s.entity.settings.deadLetteringOnFilterEvaluationExceptions && s.entity.dlq) {
        out.push({ entity: s.entity.dlq, message: withDeadLetterReason(p, FILTER_EVALUATION_REASON, failure) });
      }
    }
    return out;
  }
}

/** A copy of `p` carrying a dead-letter reason and description, as a dead-lettered message does. */
function withDeadLetterReason(p: ParsedMessage, reason: string, description: string): ParsedMessage {
  const appProps = mergeAppProps(
    p.sections.appProps,
    wrapProps({ DeadLetterReason: reason, DeadLetterErrorDescription: description }),
  );
  return {
    ...p,
    sections: { ...p.sections, appProps },
    size: p.size - (p.sections.appProps?.length ?? 0) + appProps.length,
    filterFields: {
      ...p.filterFields,
      appProps: { ...p.filterFields.appProps, DeadLetterReason: reason, DeadLetterErrorDescription: description },
    },
  };
}
