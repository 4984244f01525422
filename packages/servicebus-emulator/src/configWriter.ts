import type { AuthorizationRule, EntityMeta, EntitySettings, NamespaceConfig } from './config.js';
import type { RuleConfig, SqlParameterValues } from './ruleConfig.js';
import { formatDurationMs } from './duration.js';

/** The unit of a typed SQL parameter as the data directory keeps it (JSON has no integer/double split). */
interface StoredParameter {
  Type: 'long' | 'double' | 'string' | 'boolean' | 'dateTime';
  Value: string;
}

function ruleJson(r: AuthorizationRule): object {
  return {
    KeyName: r.keyName,
    PrimaryKey: r.primaryKey,
    SecondaryKey: r.secondaryKey,
    Rights: r.rights,
    CreatedAt: new Date(r.createdAt).toISOString(),
    ModifiedAt: new Date(r.modifiedAt).toISOString(),
  };
}

function properties(s: EntitySettings, m: EntityMeta): Record<string, unknown> {
  return {
    DeadLetteringOnMessageExpiration: s.deadLetteringOnMessageExpiration,
    ...(s.deadLetteringOnFilterEvaluationExceptions ? {} : { DeadLetteringOnFilterEvaluationExceptions: false }),
    ...(Number.isFinite(s.defaultTtlMs) ? { DefaultMessageTimeToLive: formatDurationMs(s.defaultTtlMs) } : {}),
    DuplicateDetectionHistoryTimeWindow: formatDurationMs(s.duplicateDetectionWindowMs),
    ...(s.forwardDeadLetteredMessagesTo ? { ForwardDeadLetteredMessagesTo: s.forwardDeadLetteredMessagesTo } : {}),
    ...(s.forwardTo ? { ForwardTo: s.forwardTo } : {}),
    LockDuration: formatDurationMs(s.lockDurationMs),
    MaxDeliveryCount: s.maxDeliveryCount,
    RequiresDuplicateDetection: s.requiresDuplicateDetection,
    RequiresSession: s.requiresSession,
    MaxMessageSizeInKilobytes: Math.round(s.maxMessageSizeBytes / 1024),
    MaxSizeInMegabytes: m.maxSizeInMegabytes,
    ...(m.userMetadata !== undefined ? { UserMetadata: m.userMetadata } : {}),
    CreatedAt: new Date(m.createdAt).toISOString(),
    UpdatedAt: new Date(m.updatedAt).toISOString(),
    ...(s.enablePartitioning ? { EnablePartitioning: true } : {}),
    ...(m.enableBatchedOperations ? {} : { EnableBatchedOperations: false }),
    ...(m.supportOrdering ? {} : { SupportOrdering: false }),
    ...(s.status !== 'Active' ? { Status: s.status } : {}),
    ...(Number.isFinite(s.autoDeleteOnIdleMs) ? { AutoDeleteOnIdle: formatDurationMs(s.autoDeleteOnIdleMs) } : {}),
    ...(m.accessedAt !== undefined ? { AccessedAt: new Date(m.accessedAt).toISOString() } : {}),
    ...(s.authorizationRules.length > 0
      ? {
          AuthorizationRules: s.authorizationRules.map(ruleJson),
        }
      : {}),
  };
}

/** Parameters in the stored form; read back by `configRules.ts`. */
function storeParameters(p: SqlParameterValues): Record<string, StoredParameter> | undefined {
  const entries = Object.entries(p);
  if (entries.length === 0) return undefined;
  return Object.fromEntries(
    entries.map(([k, v]): [string, StoredParameter] => {
      if (typeof v === 'bigint') return [k, { Type: 'long', Value: v.toString() }];
      if (typeof v === 'number') return [k, { Type: 'double', Value: String(v) }];
      if (typeof v === 'boolean') return [k, { Type: 'boolean', Value: String(v) }];
      if (v instanceof Date) return [k, { Type: 'dateTime', Value: v.toISOString() }];
      return [k, { Type: 'string', Value: v }];
    }),
  );
}

function rule(r: RuleConfig): object {
  const f = r.filter;
  const action = r.action
    ? { Action: { SqlExpression: r.action.expression, Parameters: storeParameters(r.action.parameters) } }
    : {};
  const CreatedAt = new Date(r.createdAt).toISOString();
  if (f.type === 'correlation') {
    const c = f.correlation;
    const CorrelationFilter = {
      ContentType: c.contentType,
      CorrelationId: c.correlationId,
      Label: c.label,
      MessageId: c.messageId,
      ReplyTo: c.replyTo,
      ReplyToSessionId: c.replyToSessionId,
      SessionId: c.sessionId,
      To: c.to,
      // A dateTime value has no JSON form of its own: it is kept as a typed value, read back by `configRules.ts`.
      Properties: Object.fromEntries(
        Object.entries(c.properties).map(([k, v]) => [
          k,
          v instanceof Date ? { Type: 'dateTime', Value: v.toISOString() } : v,
        ]),
      ),
    };
    return { Name: r.name, CreatedAt, Properties: { FilterType: 'Correlation', CorrelationFilter, ...action } };
  }
  const SqlFilter =
    f.type === 'sql'
      ? { SqlExpression: f.expression, Parameters: storeParameters(f.parameters) }
      : { SqlExpression: f.type === 'true' ? '1=1' : '1=0' };
  return { Name: r.name, CreatedAt, Properties: { FilterType: 'Sql', SqlFilter, ...action } };
}

/**
 * The namespace in the official emulator's Config.json format, so the file the data directory keeps can
 * also be read (or copied) as an entity file. Extensions it adds: `MaxSizeInMegabytes`, `UserMetadata`,
 * `CreatedAt`, `UpdatedAt`, `AutoDeleteOnIdle`, `AccessedAt` and typed SQL `Parameters`.
 */
export function toConfigJson(ns: NamespaceConfig): object {
  return {
    UserConfig: {
      Namespaces: [
        {
          Name: ns.namespace,
          ...(ns.authorizationRules.length > 0 ? { AuthorizationRules: ns.authorizationRules.map(ruleJson) } : {}),
          Queues: ns.queues.map((q) => ({ Name: q.name, Properties: properties(q.settings, q.meta) })),
          Topics: ns.topics.map((t) => ({
            Name: t.name,
            Properties: properties(t.settings, t.meta),
            Subscriptions: t.subscriptions.map((s) => ({
              Name: s.name,
              Properties: properties(s.settings, s.meta),
              Rules: s.rules.map(rule),
            })),
          })),
        },
      ],
      Logging: { Type: 'Console' },
    },
  };
}
