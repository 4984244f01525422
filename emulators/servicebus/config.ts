import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { parseDurationMs } from './duration.js';

/** Settings of one queue or subscription, with durations already in milliseconds. */
export interface EntitySettings {
  readonly lockDurationMs: number;
  readonly maxDeliveryCount: number;
  /** `Infinity` when messages never expire. */
  readonly defaultTtlMs: number;
  readonly deadLetteringOnMessageExpiration: boolean;
  readonly requiresDuplicateDetection: boolean;
  readonly duplicateDetectionWindowMs: number;
  readonly requiresSession: boolean;
  /** Entity name to forward every accepted message to, or undefined. */
  readonly forwardTo: string | undefined;
  readonly forwardDeadLetteredMessagesTo: string | undefined;
  readonly maxMessageSizeBytes: number;
}

/** A correlation filter; every field present must match (properties by exact value). */
export interface CorrelationFilter {
  readonly contentType?: string;
  readonly correlationId?: string;
  readonly label?: string;
  readonly messageId?: string;
  readonly replyTo?: string;
  readonly replyToSessionId?: string;
  readonly sessionId?: string;
  readonly to?: string;
  readonly properties: Readonly<Record<string, string | number | boolean>>;
}

/** A subscription of a topic; it receives the messages matching any of its filters (all when none). */
export interface SubscriptionConfig {
  readonly name: string;
  readonly settings: EntitySettings;
  readonly filters: readonly CorrelationFilter[];
}

/** A topic and its subscriptions. */
export interface TopicConfig {
  readonly name: string;
  readonly settings: EntitySettings;
  readonly subscriptions: readonly SubscriptionConfig[];
}

/** The resolved namespace: what the broker serves. */
export interface NamespaceConfig {
  readonly namespace: string;
  readonly queues: readonly { readonly name: string; readonly settings: EntitySettings }[];
  readonly topics: readonly TopicConfig[];
}

/** Thrown when Config.json is invalid; the message names the entity and the field. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const DEFAULT_MAX_MESSAGE_KB = 256;
const duration = z.string().refine((s) => parseDurationMs(s) !== undefined, { message: 'expected an ISO 8601 duration such as PT1M' });
const optionalName = z.string().optional();

const entityProps = z.object({
  DeadLetteringOnMessageExpiration: z.boolean().default(false),
  DefaultMessageTimeToLive: duration.optional(),
  DuplicateDetectionHistoryTimeWindow: duration.default('PT10M'),
  ForwardDeadLetteredMessagesTo: optionalName,
  ForwardTo: optionalName,
  LockDuration: duration.default('PT1M'),
  MaxDeliveryCount: z.number().int().min(1).default(10),
  RequiresDuplicateDetection: z.boolean().default(false),
  RequiresSession: z.boolean().default(false),
  MaxMessageSizeInKilobytes: z.number().int().min(1).default(DEFAULT_MAX_MESSAGE_KB),
});

const correlation = z.object({
  ContentType: z.string().optional(),
  CorrelationId: z.string().optional(),
  Label: z.string().optional(),
  MessageId: z.string().optional(),
  ReplyTo: z.string().optional(),
  ReplyToSessionId: z.string().optional(),
  SessionId: z.string().optional(),
  To: z.string().optional(),
  Properties: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
});

const rule = z.object({
  Name: z.string().min(1),
  Properties: z.object({ FilterType: z.literal('Correlation'), CorrelationFilter: correlation }),
});

const named = z.object({ Name: z.string().min(1).regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, ".", "_" and "-" only') });

const root = z.object({
  UserConfig: z.object({
    Namespaces: z
      .array(
        z.object({
          Name: z.string().min(1),
          Queues: z.array(z.unknown()).default([]),
          Topics: z.array(z.unknown()).default([]),
        }),
      )
      .min(1),
    Logging: z.unknown().optional(),
  }),
});

type Props = z.infer<typeof entityProps>;

function fail(where: string, issue: z.core.$ZodIssue): never {
  const field = issue.path.map(String).join('.') || '(root)';
  throw new ConfigError(`Invalid Service Bus config: ${where}: field "${field}": ${issue.message}`);
}

function parse<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  const result = schema.safeParse(value);
  if (!result.success) fail(where, result.error.issues[0] as z.core.$ZodIssue);
  return result.data;
}

function toSettings(p: Props): EntitySettings {
  const ttl = p.DefaultMessageTimeToLive === undefined ? Infinity : (parseDurationMs(p.DefaultMessageTimeToLive) as number);
  return Object.freeze({
    lockDurationMs: parseDurationMs(p.LockDuration) as number,
    maxDeliveryCount: p.MaxDeliveryCount,
    defaultTtlMs: ttl,
    deadLetteringOnMessageExpiration: p.DeadLetteringOnMessageExpiration,
    requiresDuplicateDetection: p.RequiresDuplicateDetection,
    duplicateDetectionWindowMs: parseDurationMs(p.DuplicateDetectionHistoryTimeWindow) as number,
    requiresSession: p.RequiresSession,
    forwardTo: p.ForwardTo ? p.ForwardTo : undefined,
    forwardDeadLetteredMessagesTo: p.ForwardDeadLetteredMessagesTo ? p.ForwardDeadLetteredMessagesTo : undefined,
    maxMessageSizeBytes: p.MaxMessageSizeInKilobytes * 1024,
  });
}

function toFilter(c: z.infer<typeof correlation>): CorrelationFilter {
  return {
    contentType: c.ContentType, correlationId: c.CorrelationId, label: c.Label, messageId: c.MessageId,
    replyTo: c.ReplyTo, replyToSessionId: c.ReplyToSessionId, sessionId: c.SessionId, to: c.To, properties: c.Properties,
  };
}

function entity(raw: unknown, kind: string, index: number): { name: string; settings: EntitySettings; raw: Record<string, unknown> } {
  const { Name } = parse(named, raw, `${kind} #${index + 1}`);
  const rec = raw as Record<string, unknown>;
  const props = parse(z.object({ Properties: entityProps.default(entityProps.parse({})) }), rec, `${kind} "${Name}"`);
  return { name: Name, settings: toSettings(props.Properties), raw: rec };
}

/**
 * Parses and validates a Config.json in the official emulator's format (`UserConfig.Namespaces[0]`).
 * Accepts a file path or the already-parsed object. Throws {@link ConfigError} naming the entity and field.
 */
export function loadConfig(source: string | object): NamespaceConfig {
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
  const queues = ns.Queues.map((q, i) => {
    const { name, settings } = entity(q, 'queue', i);
    return { name, settings };
  });
  const topics = ns.Topics.map((t, i): TopicConfig => {
    const { name, settings, raw } = entity(t, 'topic', i);
    const subs = parse(z.object({ Subscriptions: z.array(z.unknown()).default([]) }), raw, `topic "${name}"`).Subscriptions;
    const subscriptions = subs.map((s, j): SubscriptionConfig => {
      const sub = entity(s, `topic "${name}" subscription`, j);
      const where = `topic "${name}" subscription "${sub.name}"`;
      const rules = parse(z.object({ Rules: z.array(rule).default([]) }), sub.raw, where).Rules;
      return { name: sub.name, settings: sub.settings, filters: rules.map((r) => toFilter(r.Properties.CorrelationFilter)) };
    });
    return { name, settings, subscriptions };
  });
  checkReferences(queues.map((q) => q.name), topics, queues);
  return Object.freeze({ namespace: ns.Name, queues, topics });
}

function checkReferences(queueNames: string[], topics: readonly TopicConfig[], queues: NamespaceConfig['queues']): void {
  const known = new Set([...queueNames.map((n) => n.toLowerCase()), ...topics.map((t) => t.name.toLowerCase())]);
  const seen = new Set<string>();
  for (const name of [...queueNames, ...topics.map((t) => t.name)]) {
    if (seen.has(name.toLowerCase())) throw new ConfigError(`Invalid Service Bus config: entity "${name}": field "Name": duplicate entity name`);
    seen.add(name.toLowerCase());
  }
  const all = [
    ...queues.map((q) => ({ where: `queue "${q.name}"`, s: q.settings })),
    ...topics.flatMap((t) => t.subscriptions.map((s) => ({ where: `topic "${t.name}" subscription "${s.name}"`, s: s.settings }))),
  ];
  for (const { where, s } of all) {
    for (const [field, target] of [['ForwardTo', s.forwardTo], ['ForwardDeadLetteredMessagesTo', s.forwardDeadLetteredMessagesTo]] as const) {
      if (target !== undefined && !known.has(target.toLowerCase())) {
        throw new ConfigError(`Invalid Service Bus config: ${where}: field "Properties.${field}": unknown entity "${target}"`);
      }
    }
  }
}
