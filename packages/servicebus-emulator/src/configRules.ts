import { z } from 'zod';
import type { CorrelationFilter, RuleConfig, RuleFilterSpec, SqlParameterValues } from './ruleConfig.js';
import { ConfigError, parse } from './configError.js';
import { compileSqlAction, compileSqlFilter } from './filters/sqlRule.js';
import { SqlSyntaxError } from './filters/parse.js';

/** Name of the rule a subscription gets when none is given. */
const DEFAULT_RULE_NAME = '$Default';

const correlation = z.object({
  ContentType: z.string().optional(),
  CorrelationId: z.string().optional(),
  Label: z.string().optional(),
  MessageId: z.string().optional(),
  ReplyTo: z.string().optional(),
  ReplyToSessionId: z.string().optional(),
  SessionId: z.string().optional(),
  To: z.string().optional(),
  Properties: z
    .record(
      z.string(),
      z.union([
        z.string(),
        z.number(),
        z.boolean(),
        z.object({ Type: z.literal('dateTime'), Value: z.iso.datetime() }),
      ]),
    )
    .default({}),
});

// `Parameters` is this emulator's extension (the data directory's copy keeps rules made through the API).
const storedParameter = z.object({
  Type: z.enum(['long', 'double', 'string', 'boolean', 'dateTime']),
  Value: z.string(),
});
const sqlExpression = z.object({
  SqlExpression: z.string().min(1),
  Parameters: z.record(z.string(), storedParameter).optional(),
});

function readParameters(p: Record<string, z.infer<typeof storedParameter>> | undefined): SqlParameterValues {
  const out: Record<string, bigint | number | string | boolean | Date> = {};
  for (const [k, { Type, Value }] of Object.entries(p ?? {})) {
    out[k] =
      Type === 'long'
        ? BigInt(Value)
        : Type === 'double'
          ? Number(Value)
          : Type === 'boolean'
            ? Value === 'true'
            : Type === 'dateTime'
              ? new Date(Value)
              : Value;
  }
  return out;
}

// The official emulator's shape: `Properties: { FilterType, CorrelationFilter | SqlFilter, Action? }`.
const rule = z.object({
  Name: z.string().min(1),
  Properties: z.discriminatedUnion('FilterType', [
    z.object({
      FilterType: z.literal('Correlation'),
      CorrelationFilter: correlation,
      Action: sqlExpression.optional(),
    }),
    z.object({ FilterType: z.literal('Sql'), SqlFilter: sqlExpression, Action: sqlExpression.optional() }),
  ]),
  CreatedAt: z.iso.datetime().optional(),
});

/** The rule that takes every message (`1=1`), which Azure gives a subscription created without one. */
export function defaultRule(now: number): RuleConfig {
  return { name: DEFAULT_RULE_NAME, filter: { type: 'true' }, action: undefined, createdAt: now };
}

function toCorrelation(c: z.infer<typeof correlation>): CorrelationFilter {
  return {
    contentType: c.ContentType,
    correlationId: c.CorrelationId,
    label: c.Label,
    messageId: c.MessageId,
    replyTo: c.ReplyTo,
    replyToSessionId: c.ReplyToSessionId,
    sessionId: c.SessionId,
    to: c.To,
    properties: Object.fromEntries(
      Object.entries(c.Properties).map(([k, v]) => [k, typeof v === 'object' ? new Date(v.Value) : v]),
    ),
  };
}

/**
 * Checks that a rule's SQL filter and action compile, so a bad expression fails when the rule is defined
 * (at start, or on the management API's PUT) with the position of the error, never when a message arrives.
 */
export function checkRuleSql(r: RuleConfig): SqlSyntaxError | undefined {
  try {
    if (r.filter.type === 'sql') compileSqlFilter(r.filter.expression, r.filter.parameters);
    if (r.action) compileSqlAction(r.action.expression, r.action.parameters);
    return undefined;
  } catch (err) {
    if (err instanceof SqlSyntaxError) return err;
    throw err;
  }
}

/** A SQL filter, with Azure's spellings of the constant filters (`1=1` TrueFilter, `1=0` FalseFilter) recognised. */
export function sqlFilterSpec(expression: string, parameters: SqlParameterValues): RuleFilterSpec {
  const compact = expression.replace(/\s+/g, '');
  if (compact === '1=1') return { type: 'true' };
  if (compact === '1=0') return { type: 'false' };
  return { type: 'sql', expression, parameters };
}

/** Reads one `Rules[]` entry of Config.json. */
export function parseRule(raw: unknown, where: string, now: number): RuleConfig {
  const r = parse(rule, raw, where);
  const p = r.Properties;
  const filter: RuleFilterSpec =
    p.FilterType === 'Sql'
      ? sqlFilterSpec(p.SqlFilter.SqlExpression, readParameters(p.SqlFilter.Parameters))
      : { type: 'correlation', correlation: toCorrelation(p.CorrelationFilter) };
  const resolved: RuleConfig = {
    name: r.Name,
    filter,
    action: p.Action
      ? { expression: p.Action.SqlExpression, parameters: readParameters(p.Action.Parameters) }
      : undefined,
    createdAt: r.CreatedAt ? Date.parse(r.CreatedAt) : now,
  };
  const bad = checkRuleSql(resolved);
  if (bad) throw new ConfigError(`Invalid Service Bus config: ${where} "${r.Name}": ${bad.message}`);
  return resolved;
}
