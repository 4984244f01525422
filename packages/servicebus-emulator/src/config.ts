import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError, parse } from './configError.js';
import { defaultRule, parseRule } from './configRules.js';
import { isUnbounded, parseDurationMs } from './duration.js';
import type { RuleConfig } from './ruleConfig.js';

export { ConfigError } from './configError.js';

/** Settings of one queue or subscription, with durations already in milliseconds. */
export interface EntitySettings {
  readonly lockDurationMs: number;
  readonly maxDeliveryCount: number;
  /** `Infinity` when messages never expire. */
  readonly defaultTtlMs: number;
  readonly deadLetteringOnMessageExpiration: boolean;
  /** A subscription dead-letters a message one of its rules failed to evaluate (Azure's default: true). */
  readonly deadLetteringOnFilterEvaluationExceptions: boolean;
  readonly requiresDuplicateDetection: boolean;
  readonly duplicateDetectionWindowMs: number;
  readonly requiresSession: boolean;
  /** Entity name to forward every accepted message to, or undefined. */
  readonly forwardTo: string | undefined;
  readonly forwardDeadLetteredMessagesTo: string | undefined;
  readonly maxMessageSizeBytes: number;
  /** Partitioned on Azure (`EnablePartitioning`): the partition-key rules apply; stored unpartitioned here. */
  readonly enablePartitioning: boolean;
  /** `Status`: what the entity still accepts (sends, receives) besides Active. */
  readonly status: EntityStatus;
  /** SAS rules of the entity itself (`AuthorizationRules`), beside the namespace's. */
  readonly authorizationRules: readonly AuthorizationRule[];
  /** `AutoDeleteOnIdle`: the entity is deleted after this long without activity; `Infinity` for never. */
  readonly autoDeleteOnIdleMs: number;
}

/** Azure's shortest `AutoDeleteOnIdle`: five minutes. */
export const MIN_AUTO_DELETE_ON_IDLE_MS = 5 * 60_000;

/** An entity's status as Azure names it. */
export type EntityStatus = 'Active' | 'Disabled' | 'SendDisabled' | 'ReceiveDisabled';

/** A right a SAS rule grants. */
export type AccessRight = 'Manage' | 'Send' | 'Listen';

/** A shared access authorization rule: a key name, two keys and the rights they grant. */
export interface AuthorizationRule {
  readonly keyName: string;
  readonly primaryKey: string;
  readonly secondaryKey: string;
  readonly rights: readonly AccessRight[];
  /** Epoch ms. */
  readonly createdAt: number;
  readonly modifiedAt: number;
}

/** Management-API facts about an entity that do not change how it behaves. */
export interface EntityMeta {
  /** Epoch ms. */
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly userMetadata: string | undefined;
  readonly maxSizeInMegabytes: number;
  readonly enableBatchedOperations: boolean;
  readonly supportOrdering: boolean;
  /** Epoch ms of the last activity (send, receive, management change) as last saved; idle time counts from it. */
  readonly accessedAt?: number;
}

/** A queue. */
interface QueueConfig {
  readonly name: string;
  readonly settings: EntitySettings;
  readonly meta: EntityMeta;
}

/** A subscription of a topic; it receives the messages its rules select (see {@link RuleConfig}). */
interface SubscriptionConfig {
  readonly name: string;
  readonly settings: EntitySettings;
  readonly rules: readonly RuleConfig[];
  readonly meta: EntityMeta;
}

/** A topic and its subscriptions. */
interface TopicConfig {
  readonly name: string;
  readonly settings: EntitySettings;
  readonly subscriptions: readonly SubscriptionConfig[];
  readonly meta: EntityMeta;
}

/** The resolved namespace: what the broker serves. */
export interface NamespaceConfig {
  readonly namespace: string;
  /** SAS rules of the namespace from Config.json, besides the well-known root rule. */
  readonly authorizationRules: readonly AuthorizationRule[];
  readonly queues: readonly QueueConfig[];
  readonly topics: readonly TopicConfig[];
}

const DEFAULT_MAX_MESSAGE_KB = 256;
const DEFAULT_MAX_SIZE_MB = 1024;
const duration = z
  .string()
  .refine((s) => parseDurationMs(s) !== undefined, { message: 'expected an ISO 8601 duration such as PT1M' });
const optionalName = z.string().optional();

const accessRight = z.enum(['Manage', 'Send', 'Listen']);
// An extension of the official format: SAS rules of an entity, as the management API describes them.
const authorizationRule = z.object({
  KeyName: z.string().min(1),
  PrimaryKey: z.string().min(1),
  SecondaryKey: z.string().min(1),
  Rights: z.array(accessRight).min(1),
  CreatedAt: z.iso.datetime().optional(),
  ModifiedAt: z.iso.datetime().optional(),
});

const entityProps = z.object({
  DeadLetteringOnMessageExpiration: z.boolean().default(false),
  DeadLetteringOnFilterEvaluationExceptions: z.boolean().default(true),
  DefaultMessageTimeToLive: duration.optional(),
  DuplicateDetectionHistoryTimeWindow: duration.default('PT10M'),
  ForwardDeadLetteredMessagesTo: optionalName,
  ForwardTo: optionalName,
  LockDuration: duration.default('PT1M'),
  MaxDeliveryCount: z.number().int().min(1).default(10),
  RequiresDuplicateDetection: z.boolean().default(false),
  RequiresSession: z.boolean().default(false),
  MaxMessageSizeInKilobytes: z.number().int().min(1).default(DEFAULT_MAX_MESSAGE_KB),
  // Written by the management API into the data directory's copy; optional in a hand-written file.
  MaxSizeInMegabytes: z.number().int().min(1).default(DEFAULT_MAX_SIZE_MB),
  UserMetadata: z.string().optional(),
  CreatedAt: z.iso.datetime().optional(),
  UpdatedAt: z.iso.datetime().optional(),
  EnablePartitioning: z.boolean().default(false),
  EnableBatchedOperations: z.boolean().default(true),
  SupportOrdering: z.boolean().default(true),
  Status: z.enum(['Active', 'Disabled', 'SendDisabled', 'ReceiveDisabled']).default('Active'),
  AuthorizationRules: z.array(authorizationRule).default([]),
  // Not in the official emulator's format (it has no such property); Azure's minimum is five minutes.
  AutoDeleteOnIdle: duration
    .refine(
      (s) => isUnbounded(parseDurationMs(s) as number) || (parseDurationMs(s) as number) >= MIN_AUTO_DELETE_ON_IDLE_MS,
      { message: 'must be at least PT5M' },
    )
    .optional(),
  // Written into the data directory's copy: the last activity, from which idle time counts.
  AccessedAt: z.iso.datetime().optional(),
});

const named = z.object({
  Name: z
    .string()
    .min(1)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, ".", "_" and "-" only'),
});

const root = z.object({
  UserConfig: z.object({
    Namespaces: z
      .array(
        z.object({
          Name: z.string().min(1),
          // An extension: more SAS rules for the namespace, beside RootManageSharedAccessKey.
          AuthorizationRules: z.array(authorizationRule).default([]),
          Queues: z.array(z.unknown()).default([]),
          Topics: z.array(z.unknown()).default([]),
        }),
      )
      .min(1),
    Logging: z.unknown().optional(),
  }),
});

type Props = z.infer<typeof entityProps>;

function toAuthorizationRules(rules: z.infer<typeof authorizationRule>[]): AuthorizationRule[] {
  return rules.map((r) => {
    const createdAt = r.CreatedAt ? Date.parse(r.CreatedAt) : Date.now();
    return {
      keyName: r.KeyName,
      primaryKey: r.PrimaryKey,
      secondaryKey: r.SecondaryKey,
      rights: r.Rights,
      createdAt,
      modifiedAt: r.ModifiedAt ? Date.parse(r.ModifiedAt) : createdAt,
    };
  });
}

function toSettings(p: Props): EntitySettings {
  const ttlMs =
    p.DefaultMessageTimeToLive === undefined ? Infinity : (parseDurationMs(p.DefaultMessageTimeToLive) as number);
  const ttl = isUnbounded(ttlMs) ? Infinity : ttlMs;
  return Object.freeze({
    lockDurationMs: parseDurationMs(p.LockDuration) as number,
    maxDeliveryCount: p.MaxDeliveryCount,
    defaultTtlMs: ttl,
    deadLetteringOnMessageExpiration: p.DeadLetteringOnMessageExpiration,
    deadLetteringOnFilterEvaluationExceptions: p.DeadLetteringOnFilterEvaluationExceptions,
    requiresDuplicateDetection: p.RequiresDuplicateDetection,
    duplicateDetectionWindowMs: parseDurationMs(p.DuplicateDetectionHistoryTimeWindow) as number,
    requiresSession: p.RequiresSession,
    forwardTo: p.ForwardTo ? p.ForwardTo : undefined,
    forwardDeadLetteredMessagesTo: p.ForwardDeadLetteredMessagesTo ? p.ForwardDeadLetteredMessagesTo : undefined,
    maxMessageSizeBytes: p.MaxMessageSizeInKilobytes * 1024,
    enablePartitioning: p.EnablePartitioning,
    status: p.Status,
    authorizationRules: toAuthorizationRules(p.AuthorizationRules),
    autoDeleteOnIdleMs:
      p.AutoDeleteOnIdle === undefined || isUnbounded(parseDurationMs(p.AutoDeleteOnIdle) as number)
        ? Infinity
        : (parseDurationMs(p.AutoDeleteOnIdle) as number),
  });
}

function toMeta(p: Props, now: number): EntityMeta {
  const createdAt = p.CreatedAt ? Date.parse(p.CreatedAt) : now;
  return {
    createdAt,
    updatedAt: p.UpdatedAt ? Date.parse(p.UpdatedAt) : createdAt,
    userMetadata: p.UserMetadata,
    maxSizeInMegabytes: p.MaxSizeInMegabytes,
    enableBatchedOperations: p.EnableBatchedOperations,
    supportOrdering: p.SupportOrdering,
    ...(p.AccessedAt ? { accessedAt: Date.parse(p.AccessedAt) } : {}),
  };
}

function entity(
  raw: unknown,
  kind: string,
  index: number,
  now: number,
): QueueConfig & { raw: Record<string, unknown> } {
  const { Name } = parse(named, raw, `${kind} #${index + 1}`);
  const rec = raw as Record<string, unknown>;
  const props = parse(z.object({ Properties: entityProps.default(entityProps.parse({})) }), rec, `${kind} "${Name}"`);
  return { name: Name, settings: toSettings(props.Properties), meta: toMeta(props.Properties, now), raw: rec };
}

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions {
  /**
   * The file is the data directory's copy of the namespace: a subscription with `Rules: []` then has no rules
   * (it receives nothing), where in a hand-written file it gets the default rule. @default false
   */
  snapshot?: boolean;
}

/**
 * Parses and validates a Config.json in the official emulator's format (`UserConfig.Namespaces[0]`).
 * Accepts a file path or the already-parsed object. Throws {@link ConfigError} naming the entity and field.
 */
export function loadConfig(source: string | object, options: LoadConfigOptions = {}): NamespaceConfig {
  let value: unknown = source;
  if (typeof source === 'string') {
    try {
      value = JSON.parse(readFileSync(source, 'utf8'));
    } catch (err) {
      throw new ConfigError(`Invalid Service Bus config: cannot read ${source}: ${(err as Error).message}`);
    }
  }
  const cfg = parse(root, value, 'Config.json');
  const ns = cfg.UserConfig.Namespaces[0] as (typeof cfg.UserConfig.Namespaces)[number];
  const now = Date.now();
  const queues = ns.Queues.map((q, i): QueueConfig => {
    const { name, settings, meta } = entity(q, 'queue', i, now);
    return { name, settings, meta };
  });
  const topics = ns.Topics.map((t, i): TopicConfig => {
    const { name, settings, meta, raw } = entity(t, 'topic', i, now);
    const subs = parse(
      z.object({ Subscriptions: z.array(z.unknown()).default([]) }),
      raw,
      `topic "${name}"`,
    ).Subscriptions;
    const subscriptions = subs.map((s, j): SubscriptionConfig => {
      const sub = entity(s, `topic "${name}" subscription`, j, now);
      const where = `topic "${name}" subscription "${sub.name}"`;
      const rules = parse(z.object({ Rules: z.array(z.unknown()).default([]) }), sub.raw, where).Rules;
      // No rules listed: the subscription gets the default rule that takes everything, as on Azure.
      const resolved =
        rules.length === 0 && !options.snapshot
          ? [defaultRule(now)]
          : rules.map((r, k) => parseRule(r, `${where} rule #${k + 1}`, now));
      return { name: sub.name, settings: sub.settings, meta: sub.meta, rules: resolved };
    });
    return { name, settings, meta, subscriptions };
  });
  checkReferences(
    queues.map((q) => q.name),
    topics,
    queues,
  );
  return Object.freeze({
    namespace: ns.Name,
    authorizationRules: toAuthorizationRules(ns.AuthorizationRules),
    queues,
    topics,
  });
}

function checkReferences(
  queueNames: string[],
  topics: readonly TopicConfig[],
  queues: NamespaceConfig['queues'],
): void {
  const known = new Set([...queueNames.map((n) => n.toLowerCase()), ...topics.map((t) => t.name.toLowerCase())]);
  const seen = new Set<string>();
  for (const name of [...queueNames, ...topics.map((t) => t.name)]) {
    if (seen.has(name.toLowerCase()))
      throw new ConfigError(`Invalid Service Bus config: entity "${name}": field "Name": duplicate entity name`);
    seen.add(name.toLowerCase());
  }
  const all = [
    ...queues.map((q) => ({ where: `queue "${q.name}"`, s: q.settings })),
    ...topics.flatMap((t) =>
      t.subscriptions.map((s) => ({ where: `topic "${t.name}" subscription "${s.name}"`, s: s.settings })),
    ),
  ];
  for (const { where, s } of all) {
    for (const [field, target] of [
      ['ForwardTo', s.forwardTo],
      ['ForwardDeadLetteredMessagesTo', s.forwardDeadLetteredMessagesTo],
    ] as const) {
      if (target !== undefined && !known.has(target.toLowerCase())) {
        throw new ConfigError(
          `Invalid Service Bus config: ${where}: field "Properties.${field}": unknown entity "${target}"`,
        );
      }
    }
  }
}
