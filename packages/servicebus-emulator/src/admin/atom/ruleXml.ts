import type { CorrelationFilter, CorrelationValue, RuleConfig, SqlParameterValues } from '../../ruleConfig.js';
import { sqlFilterSpec } from '../../configRules.js';
import { brokerErrors } from '../../errors/brokerError.js';
import { NS, child, childText, el, text, xsiType } from './xml.js';
import type { XmlNode } from './xml.js';

type ParamValue = SqlParameterValues[string];

function readValue(key: string, v: XmlNode): ParamValue {
  const type = xsiType(v) ?? 'string';
  const raw = v['#text'] === undefined ? '' : String(v['#text']);
  switch (type) {
    case 'string':
      return raw;
    case 'int':
    case 'long':
      return BigInt(raw);
    case 'double':
    case 'float':
    case 'decimal':
      return Number(raw);
    case 'boolean':
      return raw === 'true';
    case 'dateTime':
      return new Date(raw);
    default:
      throw brokerErrors.notImplemented(`A parameter or property of type '${type}' (key '${key}')`);
  }
}

/** `KeyValueOfstringanyType` pairs: SQL parameters or correlation properties. */
function readPairs(node: XmlNode | undefined): Record<string, ParamValue> {
  const out: Record<string, ParamValue> = {};
  const pairs = (node?.KeyValueOfstringanyType as XmlNode[] | undefined) ?? [];
  for (const p of pairs) {
    const key = childText(p, 'Key') ?? '';
    out[key] = readValue(key, child(p, 'Value') ?? {});
  }
  return out;
}

function readCorrelation(f: XmlNode): CorrelationFilter {
  const properties: Record<string, CorrelationValue> = {};
  for (const [k, v] of Object.entries(readPairs(child(f, 'Properties'))))
    properties[k] = typeof v === 'bigint' ? Number(v) : v;
  const s = (name: string): string | undefined => childText(f, name) || undefined;
  return {
    correlationId: s('CorrelationId'),
    messageId: s('MessageId'),
    to: s('To'),
    replyTo: s('ReplyTo'),
    label: s('Label'),
    sessionId: s('SessionId'),
    replyToSessionId: s('ReplyToSessionId'),
    contentType: s('ContentType'),
    properties,
  };
}

/** A RuleDescription (or a subscription's DefaultRuleDescription) as a rule; `name` is the URL's when given. */
export function readRule(d: XmlNode, name: string | undefined): RuleConfig {
  const ruleName = name ?? childText(d, 'Name') ?? '$Default';
  const f = child(d, 'Filter') ?? {};
  const filterType = xsiType(f) ?? (childText(f, 'SqlExpression') !== undefined ? 'SqlFilter' : 'TrueFilter');
  let filter: RuleConfig['filter'];
  switch (filterType) {
    case 'SqlFilter':
      filter = sqlFilterSpec(childText(f, 'SqlExpression') ?? '', readPairs(child(f, 'Parameters')));
      if (filter.type === 'sql' && filter.expression.trim() === '')
        throw brokerErrors.badRequest(`Rule '${ruleName}': the SqlFilter has no SqlExpression.`);
      break;
    case 'TrueFilter':
      filter = { type: 'true' };
      break;
    case 'FalseFilter':
      filter = { type: 'false' };
      break;
    case 'CorrelationFilter':
      filter = { type: 'correlation', correlation: readCorrelation(f) };
      break;
    default:
      throw brokerErrors.notImplemented(`Filter type '${filterType}'`);
  }
  const a = child(d, 'Action');
  const actionType = a
    ? (xsiType(a) ?? (childText(a, 'SqlExpression') ? 'SqlRuleAction' : 'EmptyRuleAction'))
    : 'EmptyRuleAction';
  if (actionType !== 'SqlRuleAction' && actionType !== 'EmptyRuleAction')
    throw brokerErrors.notImplemented(`Action type '${actionType}'`);
  const expression = a ? childText(a, 'SqlExpression') : undefined;
  const action =
    actionType === 'SqlRuleAction' && expression
      ? { expression, parameters: readPairs(child(a as XmlNode, 'Parameters')) }
      : undefined;
  return { name: ruleName, filter, action, createdAt: Date.now() };
}

function value(v: ParamValue): string {
  const attrs = (type: string): Record<string, string> => ({ 'i:type': `d6p1:${type}`, 'xmlns:d6p1': NS.xsd });
  if (typeof v === 'bigint')
    return text('Value', v.toString(), attrs(v >= -(2n ** 31n) && v < 2n ** 31n ? 'int' : 'long'));
  if (typeof v === 'number')
    return text('Value', v, attrs(Number.isInteger(v) && Math.abs(v) < 2 ** 31 ? 'int' : 'double'));
  if (typeof v === 'boolean') return text('Value', v, attrs('boolean'));
  if (v instanceof Date) return text('Value', v.toISOString(), attrs('dateTime'));
  return text('Value', v, attrs('string'));
}

function pairs(name: string, values: Readonly<Record<string, ParamValue>>): string | undefined {
  const entries = Object.entries(values);
  if (entries.length === 0) return undefined;
  return el(
    name,
    entries.map(([k, v]) => el('KeyValueOfstringanyType', [text('Key', k), value(v)])),
  );
}

function filterXml(r: RuleConfig): string {
  const f = r.filter;
  const sql = (type: string, expression: string, params: SqlParameterValues): string =>
    el('Filter', [text('SqlExpression', expression), pairs('Parameters', params), text('CompatibilityLevel', 20)], {
      'i:type': type,
    });
  switch (f.type) {
    case 'true':
      return sql('TrueFilter', '1=1', {});
    case 'false':
      return sql('FalseFilter', '1=0', {});
    case 'sql':
      return sql('SqlFilter', f.expression, f.parameters);
    case 'correlation': {
      const c = f.correlation;
      const opt = (name: string, v: string | undefined): string | undefined =>
        v === undefined ? undefined : text(name, v);
      return el(
        'Filter',
        [
          opt('CorrelationId', c.correlationId),
          opt('MessageId', c.messageId),
          opt('To', c.to),
          opt('ReplyTo', c.replyTo),
          opt('Label', c.label),
          opt('SessionId', c.sessionId),
          opt('ReplyToSessionId', c.replyToSessionId),
          opt('ContentType', c.contentType),
          pairs('Properties', c.properties),
        ],
        { 'i:type': 'CorrelationFilter' },
      );
    }
  }
}

/** A rule's RuleDescription. */
export function ruleDescription(r: RuleConfig): string {
  const action = r.action
    ? el(
        'Action',
        [
          text('SqlExpression', r.action.expression),
          pairs('Parameters', r.action.parameters),
          text('CompatibilityLevel', 20),
        ],
        { 'i:type': 'SqlRuleAction' },
      )
    : el('Action', '', { 'i:type': 'EmptyRuleAction' });
  return el(
    'RuleDescription',
    [filterXml(r), action, text('CreatedAt', new Date(r.createdAt).toISOString()), text('Name', r.name)],
    { xmlns: NS.sb, 'xmlns:i': NS.xsi },
  );
}
