import type { AuthorizationRule, EntityMeta, EntitySettings, NamespaceConfig } from '../config.js';
import type { RuleConfig } from '../ruleConfig.js';
import { brokerErrors } from '../errors/brokerError.js';
import type { MessageStore } from '../store/messageStore.js';
import { parseAddress } from './entityAddress.js';
import type { EntityContext } from './queueEntity.js';
import type { EntityCounts } from './messageIndex.js';
import { checkSend } from './sendRules.js';
import type { SendTargetRules } from './sendRules.js';
import { QueueEntity } from './queueEntity.js';
import type { SessionInfo } from './sessionCoordinator.js';
import type { EnqueueExtra, StoredMessage } from './storedMessage.js';
import { TimerQueue } from './timerQueue.js';
import { RuleSet } from './ruleSet.js';
import { TopicEntity } from './topicEntity.js';
import type { Delivery, Subscription } from './topicEntity.js';
import { mergeAppProps, readAppProps, wrapProps } from './wireMessage.js';
import type { ParsedMessage } from './wireMessage.js';
import { restoreInto } from './restore.js';
import type { RestoreTarget } from './restore.js';
import type { DuplicateDetection } from './duplicateDetection.js';

/** Forwarding chains longer than this are cut, as Service Bus does (4 hops). */
const MAX_HOPS = 4;

/** Stats of one entity for the admin port. */
export interface EntityStats extends EntityCounts {
  name: string;
  kind: 'queue' | 'subscription';
  deadLettered: number;
  sessions?: SessionInfo[];
}

/** A send taken by {@link Broker.send}: `commit` once it is durable (makes it visible), `abort` when the write failed. */
export interface Admission {
  commit(): void;
  abort(): void;
}

/** Where routing puts a message that reached its entity. */
type Sink = (entity: QueueEntity, p: ParsedMessage, extra: EnqueueExtra) => void;

/** Either a queue-like entity or a topic, as a sender address resolves. */
export type SendTarget = { kind: 'queue'; entity: QueueEntity } | { kind: 'topic'; topic: TopicEntity };

/**
 * The engine: all entities of the namespace, message routing (forwarding, topics, dead-lettering) and the
 * shared timer. It knows nothing about AMQP links; the server calls it.
 */
export class Broker implements EntityContext, RestoreTarget {
  readonly timers = new TimerQueue();
  private readonly entities = new Map<string, QueueEntity>();
  private readonly topics = new Map<string, TopicEntity>();

  /** The namespace name (Config.json's `Namespaces[0].Name`). */
  readonly namespace: string;
  /** The namespace's SAS rules from Config.json (the root rule is added by the access control). */
  readonly authorizationRules: readonly AuthorizationRule[];

  constructor(
    config: NamespaceConfig,
    readonly store: MessageStore,
  ) {
    this.namespace = config.namespace;
    this.authorizationRules = config.authorizationRules;
    for (const q of config.queues) this.addQueue(q.name, q.settings, q.meta);
    for (const t of config.topics) {
      const topic = this.addTopic(t.name, t.settings, t.meta);
      for (const s of t.subscriptions) this.addSubscription(topic, s.name, s.settings, s.meta, s.rules);
    }
    restoreInto(this, store.load());
  }

  private addQueueLike(
    name: string,
    settings: EntitySettings,
    kind: 'queue' | 'subscription',
    meta: EntityMeta,
  ): QueueEntity {
    const entity = new QueueEntity(name, settings, kind, this);
    entity.meta = meta;
    if (meta.accessedAt !== undefined) entity.lastActivity = meta.accessedAt;
    entity.dlq = new QueueEntity(`${name}/$DeadLetterQueue`, dlqSettingsOf(settings), 'deadletter', this);
    this.entities.set(name.toLowerCase(), entity);
    return entity;
  }

  /** Adds a queue (start or management API); the caller has checked the name is free. */
  addQueue(name: string, settings: EntitySettings, meta: EntityMeta): QueueEntity {
    return this.addQueueLike(name, settings, 'queue', meta);
  }

  /** Adds a topic without subscriptions. */
  addTopic(name: string, settings: EntitySettings, meta: EntityMeta): TopicEntity {
    const topic = new TopicEntity(name, settings, meta, this.store);
    this.topics.set(name.toLowerCase(), topic);
    return topic;
  }

  /** Adds a subscription with its rules; throws if a rule's SQL does not compile. */
  addSubscription(
    topic: TopicEntity,
    name: string,
    settings: EntitySettings,
    meta: EntityMeta,
    rules: readonly RuleConfig[],
  ): Subscription {
    const ruleSet = new RuleSet(rules);
    const entity = this.addQueueLike(`${topic.name}/Subscriptions/${name}`, settings, 'subscription', meta);
    const sub: Subscription = { name, entity, rules: ruleSet, meta };
    topic.subscriptions.set(name.toLowerCase(), sub);
    return sub;
  }

  /** Changes a queue's or subscription's settings, its dead-letter queue's with them. */
  reconfigure(entity: QueueEntity, settings: EntitySettings, meta: EntityMeta): void {
    entity.reconfigure(settings);
    entity.meta = meta;
    entity.dlq?.reconfigure(dlqSettingsOf(settings));
  }

  /** Deletes a queue or subscription with its messages and dead letters; its receivers are detached. */
  dropQueueLike(entity: QueueEntity): void {
    // Cleared in the log too, so a same-named entity made later does not find old session states at restart.
    for (const session of entity.sessions?.list() ?? [])
      if (session.hasState) entity.setSessionState(session.id, undefined);
    entity.purge();
    entity.dlq?.purge();
    this.entities.delete(entity.name.toLowerCase());
  }

  /** Deletes a topic and all its subscriptions. */
  dropTopic(topic: TopicEntity): void {
    for (const s of topic.subscriptions.values()) this.dropQueueLike(s.entity);
    topic.subscriptions.clear();
    this.topics.delete(topic.name.toLowerCase());
  }

  /** The queue of that name (not a subscription), or undefined. */
  findQueue(name: string): QueueEntity | undefined {
    const e = this.entities.get(name.toLowerCase());
    return e?.kind === 'queue' ? e : undefined;
  }

  /** The topic of that name, or undefined. */
  findTopic(name: string): TopicEntity | undefined {
    return this.topics.get(name.toLowerCase());
  }

  /** Queues in creation order. */
  queueList(): QueueEntity[] {
    return [...this.entities.values()].filter((e) => e.kind === 'queue');
  }

  /** Topics in creation order. */
  topicList(): TopicEntity[] {
    return [...this.topics.values()];
  }

  /** The namespace as it is now, in config form (what the data directory keeps across restarts). */
  snapshot(): NamespaceConfig {
    // The last activity is kept only where it matters: for an entity that is deleted when idle.
    const withActivity = (m: EntityMeta, settings: EntitySettings, at: number): EntityMeta =>
      Number.isFinite(settings.autoDeleteOnIdleMs) ? { ...m, accessedAt: at } : m;
    const meta = (e: QueueEntity): EntityMeta => withActivity(e.meta as EntityMeta, e.settings, e.lastActivity);
    return {
      namespace: this.namespace,
      authorizationRules: this.authorizationRules,
      queues: this.queueList().map((q) => ({ name: q.name, settings: q.settings, meta: meta(q) })),
      topics: this.topicList().map((t) => ({
        name: t.name,
        settings: t.settings,
        meta: withActivity(t.meta, t.settings, t.lastActivity),
        subscriptions: [...t.subscriptions.values()].map((s) => ({
          name: s.name,
          settings: s.entity.settings,
          meta: meta(s.entity),
          rules: s.rules.rules,
        })),
      })),
    };
  }

  /** The queue, subscription or dead-letter queue an address names; throws EntityNotFound. */
  queueFor(address: string): QueueEntity {
    const a = parseAddress(address);
    const entity = this.entities.get(a.key);
    if (!entity) throw brokerErrors.entityNotFound(a.path);
    return a.deadLetter ? (entity.dlq as QueueEntity) : entity;
  }

  /** Where a sender's messages go; throws EntityNotFound. */
  sendTarget(address: string): SendTarget {
    const a = parseAddress(address);
    const topic = this.topics.get(a.key);
    if (topic && !a.deadLetter) return { kind: 'topic', topic };
    const entity = this.entities.get(a.key);
    if (!entity || a.deadLetter || entity.kind === 'subscription') throw brokerErrors.entityNotFound(a.path);
    return { kind: 'queue', entity };
  }

  /** Records activity on the queue, topic or subscription an address names (a `$management` operation); unknown ones are ignored. */
  touch(address: string): void {
    const a = parseAddress(address);
    const target = this.topics.get(a.key) ?? this.entities.get(a.key);
    if (target) target.lastActivity = Date.now();
  }

  /** Whether the address names a topic. */
  isTopic(address: string): boolean {
    return this.topics.has(parseAddress(address).key);
  }

  /** Looks up an entity by its full name (for restore). */
  entityByName(name: string): QueueEntity | undefined {
    const a = parseAddress(name);
    const entity = this.entities.get(a.key);
    return a.deadLetter ? entity?.dlq : entity;
  }

  /** The SAS rules of the queue or topic at `path` (the access control's entity rules). */
  rulesAt(path: string): readonly AuthorizationRule[] | undefined {
    const key = path.toLowerCase();
    return (
      this.entities.get(key)?.kind === 'queue' ? this.entities.get(key)?.settings : this.topics.get(key)?.settings
    )?.authorizationRules;
  }

  /** The duplicate detection of the queue or topic a log names (for restore). */
  duplicatesByName(name: string): DuplicateDetection | undefined {
    return this.findTopic(name)?.duplicates ?? this.entityByName(name)?.duplicates;
  }

  /** Largest message the target accepts. */
  maxMessageSize(target: SendTarget): number {
    return target.kind === 'queue'
      ? target.entity.settings.maxMessageSizeBytes
      : target.topic.settings.maxMessageSizeBytes;
  }

  /**
   * Takes a send (one message or a batch): checks every message first, so a refusal takes none of them; drops
   * repeats of a recorded id; places the rest (forwarding, topic fan-out) without making them visible. The caller
   * commits once the store has them — only then are their ids recorded for duplicate detection — or aborts.
   */
  send(target: SendTarget, messages: ParsedMessage[]): Admission {
    checkSend(sendRulesOf(target), messages);
    const now = Date.now();
    activityOn(target, now);
    const duplicates = target.kind === 'topic' ? target.topic.duplicates : target.entity.duplicates;
    const detects = duplicates.enabled;
    const inBatch = new Set<string>();
    const placed: { entity: QueueEntity; m: StoredMessage }[] = [];
    const place: Sink = (entity, p, extra) => void placed.push({ entity, m: entity.prepare(p, now, extra) });
    for (const p of messages) {
      if (detects && (duplicates.isDuplicate(p.messageId, now) || inBatch.has(p.messageId))) continue;
      if (detects) inBatch.add(p.messageId);
      if (target.kind === 'topic') {
        for (const d of target.topic.targets(p, now)) this.routeInto(d.entity, d.message, 0, place);
      } else {
        this.routeInto(target.entity, p, 0, place);
      }
    }
    // Logged with the messages, a topic's as a queue's: the write that makes the send durable carries them.
    for (const id of inBatch) duplicates.logWithSend(id, now);
    return {
      commit: () => {
        const at = Date.now();
        // A concurrent send of the same id may have been committed while this one was being written.
        const repeated = new Set([...inBatch].filter((id) => duplicates.isDuplicate(id, at)));
        for (const { entity, m } of placed) {
          if (repeated.has(m.messageId)) entity.discard(m);
          else entity.admitPrepared(m);
        }
        for (const id of inBatch) if (!repeated.has(id)) duplicates.remember(id, now);
      },
      abort: () => {
        for (const { entity, m } of placed) entity.discard(m);
        for (const id of inBatch) duplicates.withdraw(id, now);
      },
    };
  }

  /**
   * Schedules messages (`$management` schedule-message) and returns their sequence numbers. On a topic each
   * message is routed at once into the subscriptions its rules select, as scheduled copies, and the topic's own
   * sequence number names them all for a cancellation.
   */
  schedule(target: SendTarget, messages: ParsedMessage[]): number[] {
    checkSend(sendRulesOf(target), messages);
    const now = Date.now();
    activityOn(target, now);
    return messages.map((p) => {
      const copies: Delivery[] = [];
      const sink: Sink = (entity, q, extra) =>
        void copies.push({ entity, message: q, stored: entity.enqueue(q, now, extra) });
      if (target.kind === 'queue') {
        this.routeInto(target.entity, p, 0, sink);
        return copies[0]?.stored?.sequenceNumber ?? 0;
      }
      for (const d of target.topic.targets(p, now)) this.routeInto(d.entity, d.message, 0, sink);
      return target.topic.addScheduled(copies);
    });
  }

  /** Cancels scheduled messages of a queue or topic by sequence number; unknown numbers are ignored, as the service does. */
  cancelScheduled(target: SendTarget, sequenceNumbers: number[]): void {
    if (target.kind === 'queue') {
      target.entity.cancelScheduled(sequenceNumbers);
      return;
    }
    for (const n of sequenceNumbers) {
      for (const copy of target.topic.takeScheduled(n))
        if (copy.stored) copy.entity.cancelScheduled([copy.stored.sequenceNumber]);
    }
  }

  /**
   * Places `p` in `entity`, or where `entity` forwards. `from` is the entity that forwarded it there: a message
   * without a session id that reaches a session entity this way is dead-lettered where it came from ("Session ID is
   * null", as Service Bus does), since no session receiver could ever take it.
   */
  private routeInto(
    entity: QueueEntity,
    p: ParsedMessage,
    hops: number,
    sink: Sink,
    extra: EnqueueExtra = {},
    from?: QueueEntity,
  ): void {
    const forward = entity.settings.forwardTo;
    if (forward !== undefined && hops < MAX_HOPS) {
      this.forward(forward, p, hops + 1, sink, extra, entity);
      return;
    }
    if (entity.settings.requiresSession && p.sessionId === undefined) {
      const owner = from ?? entity;
      if (owner.dlq)
        sink(owner.dlq, withDeadLetterReason(p, SESSION_ID_IS_NULL, SESSION_ID_IS_NULL_DESCRIPTION), extra);
      return;
    }
    sink(entity, p, extra);
  }

  private forward(
    address: string,
    p: ParsedMessage,
    hops: number,
    sink: Sink,
    extra: EnqueueExtra,
    from: QueueEntity | undefined,
  ): void {
    const target = this.sendTarget(address);
    if (target.kind === 'topic') {
      for (const d of target.topic.targets(p, Date.now())) this.routeInto(d.entity, d.message, hops, sink, extra, from);
    } else {
      this.routeInto(target.entity, p, hops, sink, extra, from);
    }
  }

  /** Moves a message to the dead-letter queue (or `ForwardDeadLetteredMessagesTo`). */
  deadLetter(from: QueueEntity, m: StoredMessage, reason: string | undefined, description: string | undefined): void {
    from.remove(m);
    const stored: ParsedMessage = {
      sections: m.sections,
      messageId: m.messageId,
      sessionId: m.sessionId,
      partitionKey: undefined,
      ttlMs: m.ttlMs,
      scheduledEnqueueTime: undefined,
      size: m.size,
      filterFields: { messageId: m.messageId, sessionId: m.sessionId, appProps: readAppProps(m.sections.appProps) },
    };
    const p = withDeadLetterReason(stored, reason, description);
    const now = Date.now();
    // Service Bus names the dead-lettering entity (DeadLetterSource) only on a message auto-forwarded out of its
    // dead-letter queue; one read from that queue itself carries none.
    const forward = from.settings.forwardDeadLetteredMessagesTo;
    if (forward !== undefined) {
      this.forward(
        forward,
        p,
        1,
        (entity, q, extra) => void entity.enqueue(q, now, extra),
        { deadLetterSource: from.name },
        from,
      );
      return;
    }
    from.dlq?.enqueue(p, now, { deliveryCount: m.deliveryCount, enqueuedTime: m.enqueuedTime });
  }

  /** Counts per queue and subscription, with sessions for session entities. */
  stats(): EntityStats[] {
    return [...this.entities.values()].map((e) => ({
      name: e.name,
      kind: e.kind === 'subscription' ? 'subscription' : 'queue',
      ...e.counts(),
      deadLettered: e.dlq?.counts().active ?? 0,
      ...(e.sessions ? { sessions: e.sessions.list() } : {}),
    }));
  }

  /** Every queue-like entity including dead-letter queues (for restore). */
  allQueues(): QueueEntity[] {
    return [...this.entities.values()].flatMap((e) => (e.dlq ? [e, e.dlq] : [e]));
  }

  /** Stops timers and held requests. */
  close(): void {
    this.timers.close();
    for (const e of this.entities.values()) e.sessions?.close();
  }
}

/** A send or schedule is activity on the queue or topic it addresses. */
function activityOn(target: SendTarget, now: number): void {
  if (target.kind === 'topic') target.topic.lastActivity = now;
  else target.entity.lastActivity = now;
}

/** The entity a send addresses, as the send rules see it. */
function sendRulesOf(target: SendTarget): SendTargetRules {
  if (target.kind === 'topic')
    return { name: target.topic.name, settings: target.topic.settings, requiresSessionOnSend: false };
  return {
    name: target.entity.name,
    settings: target.entity.settings,
    requiresSessionOnSend: target.entity.sessions !== undefined,
  };
}

/** The reason and description Service Bus gives a session-less message that reached a session entity by forwarding. */
const SESSION_ID_IS_NULL = 'Session ID is null';
const SESSION_ID_IS_NULL_DESCRIPTION =
  "Session enabled entity doesn't allow a message whose session identifier is null.";

/** `p` with `DeadLetterReason` / `DeadLetterErrorDescription` among its application properties. */
function withDeadLetterReason(
  p: ParsedMessage,
  reason: string | undefined,
  description: string | undefined,
): ParsedMessage {
  const props: Record<string, unknown> = {};
  if (reason !== undefined) props.DeadLetterReason = reason;
  if (description !== undefined) props.DeadLetterErrorDescription = description;
  const sections = { ...p.sections, appProps: mergeAppProps(p.sections.appProps, wrapProps(props)) };
  return { ...p, sections, filterFields: { ...p.filterFields, appProps: readAppProps(sections.appProps) } };
}

/** A dead-letter queue keeps its parent's lock, TTL and delivery settings, never sessions or forwarding. */
function dlqSettingsOf(settings: EntitySettings): EntitySettings {
  return { ...settings, requiresSession: false, requiresDuplicateDetection: false, forwardTo: undefined };
}
