import type { EntityMeta, EntitySettings, NamespaceConfig } from '../config.js';
import type { RuleConfig } from '../ruleConfig.js';
import { checkRuleSql, defaultRule } from '../configRules.js';
import { brokerErrors } from '../errors/brokerError.js';
import type { Broker } from './broker.js';
import { IDLE_SWEEP_MS, activitySince, chooseIdle } from './idleEntities.js';
import type { QueueEntity } from './queueEntity.js';
import type { Subscription, TopicEntity } from './topicEntity.js';

/** `create` fails when the entity exists, `update` when it does not (the ATOM API's PUT without / with `If-Match`). */
export type PutMode = 'create' | 'update';

/** What the management API says about an entity besides its settings. */
export interface EntityFacts {
  readonly userMetadata: string | undefined;
  readonly maxSizeInMegabytes: number;
  /** `EnableBatchedOperations`: a hint for the service's own store batching, with no visible effect here. */
  readonly enableBatchedOperations: boolean;
  /** A topic's `SupportOrdering`; the emulator keeps order either way, which false allows. */
  readonly supportOrdering: boolean;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Saves the namespace; `idleDeleted` names (as paths) the entities just deleted for being idle. */
export type PersistNamespace = (ns: NamespaceConfig, idleDeleted?: readonly string[]) => Promise<void>;

/** The last activity of entities deleted when idle is saved at most this often (a crash loses at most this much of it). */
const ACTIVITY_SAVE_MS = 60_000;

/**
 * The decisions of the management API, apart from its wire format: existence and conflicts, what may change
 * on an update, references between entities, SQL that must compile. Every change is saved (when a data
 * directory is used) before the call resolves, so an acknowledged change survives a restart.
 */
export class EntityManager {
  private savedAt = 0;

  constructor(
    private readonly broker: Broker,
    private readonly persist: PersistNamespace,
  ) {}

  private save(idleDeleted?: readonly string[]): Promise<void> {
    this.savedAt = Date.now();
    return this.persist(this.broker.snapshot(), idleDeleted);
  }

  /** Looks for idle entities every {@link IDLE_SWEEP_MS} on the broker's timers, until the broker closes. */
  watchIdle(): void {
    const arm = (): void =>
      this.broker.timers.at(
        Date.now() + IDLE_SWEEP_MS,
        () =>
          void this.deleteIdle()
            .catch(() => undefined)
            .finally(arm),
      );
    arm();
  }

  /**
   * Deletes every queue, topic and subscription idle for its `AutoDeleteOnIdle` (no send, receive or management
   * operation for that long, and no receiver attached), as Azure does, and saves the namespace; also saves the last
   * activity of such entities, at most every minute, so idle time survives a restart. Resolves with the paths deleted.
   */
  async deleteIdle(now = Date.now()): Promise<string[]> {
    const idle = chooseIdle(this.broker.queueList(), this.broker.topicList(), now);
    const deleted: string[] = [];
    for (const q of idle.queues) {
      this.broker.dropQueueLike(q);
      deleted.push(q.name);
    }
    for (const t of idle.topics) {
      deleted.push(t.name, ...[...t.subscriptions.values()].map((s) => s.entity.name));
      this.broker.dropTopic(t);
    }
    for (const s of idle.subscriptions) {
      this.broker.dropQueueLike(s.entity);
      s.topic.subscriptions.delete(s.name.toLowerCase());
      deleted.push(s.entity.name);
    }
    const activityDue =
      now - this.savedAt >= ACTIVITY_SAVE_MS &&
      activitySince(this.broker.queueList(), this.broker.topicList(), this.savedAt);
    if (deleted.length > 0 || activityDue) await this.save(deleted);
    return deleted;
  }

  private checkName(kind: string, name: string): void {
    if (!NAME.test(name) || name.length > 260) {
      throw brokerErrors.badRequest(
        `The ${kind} name '${name}' is invalid: use letters, digits, '.', '_' and '-', starting with a letter or digit.`,
      );
    }
  }

  private checkForwarding(owner: string, s: EntitySettings): void {
    for (const [field, target] of [
      ['ForwardTo', s.forwardTo],
      ['ForwardDeadLetteredMessagesTo', s.forwardDeadLetteredMessagesTo],
    ] as const) {
      if (target === undefined) continue;
      if (target.toLowerCase() === owner.toLowerCase())
        throw brokerErrors.badRequest(`${field} of '${owner}' cannot name the entity itself.`);
      if (!this.broker.findQueue(target) && !this.broker.findTopic(target)) {
        throw brokerErrors.badRequest(`${field} of '${owner}' names '${target}', which does not exist.`);
      }
    }
  }

  private meta(previous: EntityMeta | undefined, facts: EntityFacts): EntityMeta {
    const now = Date.now();
    return { createdAt: previous?.createdAt ?? now, updatedAt: now, ...facts };
  }

  private taken(name: string): boolean {
    return this.broker.findQueue(name) !== undefined || this.broker.findTopic(name) !== undefined;
  }

  private unchangeable(name: string, before: EntitySettings, after: EntitySettings): void {
    if (before.requiresSession !== after.requiresSession) {
      throw brokerErrors.badRequest(`The value of RequiresSession of the existing entity '${name}' cannot be changed.`);
    }
  }

  /** Creates or updates a queue. */
  async putQueue(name: string, settings: EntitySettings, facts: EntityFacts, mode: PutMode): Promise<QueueEntity> {
    this.checkName('queue', name);
    this.checkForwarding(name, settings);
    const existing = this.broker.findQueue(name);
    let queue: QueueEntity;
    if (mode === 'create') {
      if (this.taken(name)) throw brokerErrors.alreadyExists(name);
      queue = this.broker.addQueue(name, settings, this.meta(undefined, facts));
    } else {
      if (!existing) throw brokerErrors.entityNotFound(name);
      this.unchangeable(name, existing.settings, settings);
      this.broker.reconfigure(existing, settings, this.meta(existing.meta, facts));
      existing.lastActivity = Date.now();
      queue = existing;
    }
    await this.save();
    return queue;
  }

  /** Creates or updates a topic. */
  async putTopic(name: string, settings: EntitySettings, facts: EntityFacts, mode: PutMode): Promise<TopicEntity> {
    this.checkName('topic', name);
    const existing = this.broker.findTopic(name);
    let topic: TopicEntity;
    if (mode === 'create') {
      if (this.taken(name)) throw brokerErrors.alreadyExists(name);
      topic = this.broker.addTopic(name, settings, this.meta(undefined, facts));
    } else {
      if (!existing) throw brokerErrors.entityNotFound(name);
      existing.reconfigure(settings, this.meta(existing.meta, facts));
      existing.lastActivity = Date.now();
      topic = existing;
    }
    await this.save();
    return topic;
  }

  /** Deletes a queue or a topic (with its subscriptions). */
  async deleteQueueOrTopic(name: string): Promise<void> {
    const queue = this.broker.findQueue(name);
    const topic = this.broker.findTopic(name);
    if (queue) this.broker.dropQueueLike(queue);
    else if (topic) this.broker.dropTopic(topic);
    else throw brokerErrors.entityNotFound(name);
    await this.save();
  }

  /** The topic; throws EntityNotFound. */
  topic(name: string): TopicEntity {
    const t = this.broker.findTopic(name);
    if (!t) throw brokerErrors.entityNotFound(name);
    return t;
  }

  /** The subscription; throws EntityNotFound. */
  subscription(topicName: string, name: string): Subscription {
    const s = this.topic(topicName).subscriptions.get(name.toLowerCase());
    if (!s) throw brokerErrors.entityNotFound(`${topicName}/Subscriptions/${name}`);
    return s;
  }

  /** Creates (with `defaultRule`, or the `$Default` rule that takes everything) or updates a subscription. */
  async putSubscription(
    topicName: string,
    name: string,
    settings: EntitySettings,
    facts: EntityFacts,
    mode: PutMode,
    firstRule?: RuleConfig,
  ): Promise<Subscription> {
    this.checkName('subscription', name);
    const topic = this.topic(topicName);
    const path = `${topic.name}/Subscriptions/${name}`;
    this.checkForwarding(path, settings);
    const existing = topic.subscriptions.get(name.toLowerCase());
    let sub: Subscription;
    if (mode === 'create') {
      if (existing) throw brokerErrors.alreadyExists(path);
      const rule = firstRule ?? defaultRule(Date.now());
      this.checkSql(rule);
      sub = this.broker.addSubscription(topic, name, settings, this.meta(undefined, facts), [rule]);
    } else {
      if (!existing) throw brokerErrors.entityNotFound(path);
      this.unchangeable(path, existing.entity.settings, settings);
      existing.meta = this.meta(existing.meta, facts);
      this.broker.reconfigure(existing.entity, settings, existing.meta);
      existing.entity.lastActivity = Date.now();
      sub = existing;
    }
    await this.save();
    return sub;
  }

  /** Deletes a subscription with its messages. */
  async deleteSubscription(topicName: string, name: string): Promise<void> {
    const topic = this.topic(topicName);
    const sub = this.subscription(topicName, name);
    this.broker.dropQueueLike(sub.entity);
    topic.subscriptions.delete(name.toLowerCase());
    await this.save();
  }

  private checkSql(rule: RuleConfig): void {
    const bad = checkRuleSql(rule);
    if (bad) throw brokerErrors.badRequest(`Rule '${rule.name}': ${bad.message}.`);
  }

  /** Creates or replaces a rule of a subscription. */
  async putRule(topicName: string, subName: string, rule: RuleConfig, mode: PutMode): Promise<RuleConfig> {
    this.checkName('rule', rule.name.replace(/^\$Default$/, 'Default'));
    const sub = this.subscription(topicName, subName);
    const existing = sub.rules.rules.find((r) => r.name.toLowerCase() === rule.name.toLowerCase());
    if (mode === 'create' && existing)
      throw brokerErrors.alreadyExists(`${topicName}/Subscriptions/${subName}/Rules/${rule.name}`);
    if (mode === 'update' && !existing)
      throw brokerErrors.entityNotFound(`${topicName}/Subscriptions/${subName}/Rules/${rule.name}`);
    this.checkSql(rule);
    const stored = existing ? { ...rule, createdAt: existing.createdAt } : rule;
    sub.rules.put(stored);
    sub.entity.lastActivity = Date.now();
    await this.save();
    return stored;
  }

  /** Deletes a rule; a subscription left without rules receives nothing, as on Azure. */
  async deleteRule(topicName: string, subName: string, name: string): Promise<void> {
    const sub = this.subscription(topicName, subName);
    if (!sub.rules.remove(name))
      throw brokerErrors.entityNotFound(`${topicName}/Subscriptions/${subName}/Rules/${name}`);
    await this.save();
  }
}
