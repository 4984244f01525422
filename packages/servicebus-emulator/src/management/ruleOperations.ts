import type { Typed } from 'rhea';
import { amqp } from '../broker/amqpTypes.js';
import type { Subscription } from '../broker/topicEntity.js';
import { sqlFilterSpec } from '../configRules.js';
import { brokerErrors } from '../errors/brokerError.js';
import type { CorrelationFilter, CorrelationValue, RuleConfig } from '../ruleConfig.js';
import { toStringField } from './codec.js';
import type { ManagementOperation, ManagementRequest } from './types.js';

/** Descriptor codes of the rule description and its parts (Service Bus AMQP request/response reference). */
const Descriptor = {
  ruleDescription: 0x0000013700000004,
  sqlFilter: 0x0000001370000006,
  trueFilter: 0x0000001370000007,
  falseFilter: 0x0000001370000008,
  correlationFilter: 0x0000001370000009,
  emptyRuleAction: 0x0000013700000005,
  sqlRuleAction: 0x0000013700000006,
} as const;

/** The subscription a rule operation's `$management` link is attached to (`topic/Subscriptions/sub`). */
function subscriptionOf(req: ManagementRequest): { topic: string; subscription: Subscription } {
  const m = /^\/?(.+?)\/Subscriptions\/([^/]+)$/i.exec(req.address);
  if (!m) throw brokerErrors.invalid(`Rules belong to a subscription; '${req.address}' is not one.`);
  return { topic: m[1] as string, subscription: req.entities.subscription(m[1] as string, m[2] as string) };
}

function optionalString(map: Record<string, unknown>, key: string): string | undefined {
  const v = map[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw brokerErrors.badRequest(`${key} must be a string`);
  return v;
}

function correlationOf(c: Record<string, unknown>): CorrelationFilter {
  const properties: Record<string, CorrelationValue> = {};
  const raw = c.properties;
  if (raw !== undefined && raw !== null) {
    if (typeof raw !== 'object') throw brokerErrors.badRequest('properties must be a map');
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v instanceof Date)
        properties[k] = v;
      else throw brokerErrors.notImplemented(`A correlation filter property of this type ('${k}')`);
    }
  }
  return {
    correlationId: optionalString(c, 'correlation-id'),
    messageId: optionalString(c, 'message-id'),
    to: optionalString(c, 'to'),
    replyTo: optionalString(c, 'reply-to'),
    label: optionalString(c, 'label'),
    sessionId: optionalString(c, 'session-id'),
    replyToSessionId: optionalString(c, 'reply-to-session-id'),
    contentType: optionalString(c, 'content-type'),
    properties,
  };
}

/** The rule an `add-rule` request describes (`sql-filter` or `correlation-filter`, optional `sql-rule-action`). */
function ruleOf(name: string, d: Record<string, unknown>): RuleConfig {
  const sql = d['sql-filter'] as Record<string, unknown> | undefined;
  const correlation = d['correlation-filter'] as Record<string, unknown> | undefined;
  let filter: RuleConfig['filter'];
  if (sql) filter = sqlFilterSpec(toStringField(sql.expression, 'sql-filter.expression'), {});
  else if (correlation) filter = { type: 'correlation', correlation: correlationOf(correlation) };
  else throw brokerErrors.badRequest('A rule-description needs a sql-filter or a correlation-filter.');
  const action = d['sql-rule-action'] as Record<string, unknown> | undefined;
  const expression = action ? optionalString(action, 'expression') : undefined;
  return { name, filter, action: expression ? { expression, parameters: {} } : undefined, createdAt: Date.now() };
}

/** `com.microsoft:add-rule`: adds a rule to the subscription; a name already taken is EntityAlreadyExists. */
export const addRule: ManagementOperation = async (req) => {
  const { topic, subscription } = subscriptionOf(req);
  const name = toStringField(req.body['rule-name'], 'rule-name');
  const description = req.body['rule-description'];
  if (typeof description !== 'object' || description === null)
    throw brokerErrors.badRequest('rule-description must be a map');
  await req.entities.putRule(topic, subscription.name, ruleOf(name, description as Record<string, unknown>), 'create');
  return { status: 200, body: {} };
};

/** `com.microsoft:remove-rule`: removes a rule; an unknown name is EntityNotFound. */
export const removeRule: ManagementOperation = async (req) => {
  const { topic, subscription } = subscriptionOf(req);
  await req.entities.deleteRule(topic, subscription.name, toStringField(req.body['rule-name'], 'rule-name'));
  return { status: 200, body: {} };
};

function wrapValue(v: CorrelationValue): Typed {
  if (v instanceof Date) return amqp.wrap_timestamp(v.getTime());
  if (typeof v === 'number') return Number.isInteger(v) ? amqp.wrap_long(v) : amqp.wrap_double(v);
  if (typeof v === 'boolean') return amqp.wrap_boolean(v);
  return amqp.wrap_string(v);
}

const text = (v: string | undefined): Typed => (v === undefined ? amqp.Null() : amqp.wrap_string(v));
const described = (code: number, items: Typed[]): Typed =>
  amqp.described(amqp.wrap_ulong(code), amqp.wrap_list(items)) as Typed;

function filterOf(r: RuleConfig): Typed {
  const f = r.filter;
  switch (f.type) {
    case 'true':
      return described(Descriptor.trueFilter, []);
    case 'false':
      return described(Descriptor.falseFilter, []);
    case 'sql':
      return described(Descriptor.sqlFilter, [amqp.wrap_string(f.expression), amqp.wrap_int(20)]);
    case 'correlation': {
      const c = f.correlation;
      const props = amqp.wrap_map(Object.fromEntries(Object.entries(c.properties).map(([k, v]) => [k, wrapValue(v)])));
      return described(Descriptor.correlationFilter, [
        text(c.correlationId),
        text(c.messageId),
        text(c.to),
        text(c.replyTo),
        text(c.label),
        text(c.sessionId),
        text(c.replyToSessionId),
        text(c.contentType),
        props,
      ]);
    }
  }
}

/** Rules in name order, as the service enumerates them. */
function byName(rules: RuleConfig[]): RuleConfig[] {
  return [...rules].sort((a, b) =>
    a.name.toLowerCase() < b.name.toLowerCase() ? -1 : a.name.toLowerCase() > b.name.toLowerCase() ? 1 : 0,
  );
}

/** `com.microsoft:enumerate-rules`: the subscription's rules by name, paged by `skip` and `top`; 204 past the end. */
export const enumerateRules: ManagementOperation = (req) => {
  const { subscription } = subscriptionOf(req);
  const skip = Number(req.body.skip ?? 0);
  const top = Number(req.body.top ?? 100);
  const page = byName(subscription.rules.rules).slice(skip, skip + top);
  if (page.length === 0) return { status: 204, body: {} };
  const rules = page.map((r) => ({
    'rule-description': described(Descriptor.ruleDescription, [
      filterOf(r),
      r.action
        ? described(Descriptor.sqlRuleAction, [amqp.wrap_string(r.action.expression), amqp.wrap_int(20)])
        : described(Descriptor.emptyRuleAction, []),
      amqp.wrap_string(r.name),
      amqp.wrap_timestamp(r.createdAt),
    ]),
  }));
  return { status: 200, body: { rules } };
};
