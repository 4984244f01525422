import type { Typed } from 'rhea';
import type { MessageView, PropertyEdit, SqlValue } from '../filters/sqlRule.js';
import { amqp as types } from './amqpTypes.js';
import { messageCodec } from './amqpTypes.js';
import { Section, encodeProperties, sectionEntries, writeSection } from './wireMessage.js';
import type { FilterFields, ParsedMessage } from './wireMessage.js';

/**
 * The bridge between AMQP messages and the SQL filter module: typed application properties in, edited
 * application properties out. Integers of any AMQP width read as SQL integers, float/double as doubles.
 */
function toSqlValue(t: Typed): SqlValue | undefined {
  const name = (t.type as unknown as { name: string }).name;
  const v: unknown = t.value;
  if (/^(Small)?(Long|Int|Ulong|Uint)0?$|^(Short|Byte|Ubyte|Ushort)$/.test(name)) {
    return typeof v === 'number' ? BigInt(v) : Buffer.isBuffer(v) ? v.readBigInt64BE() : BigInt(String(v));
  }
  if (name === 'Double' || name === 'Float') return Number(v);
  if (name === 'True' || name === 'False' || name === 'Boolean') return Boolean(v);
  if (name === 'Timestamp') return v instanceof Date ? v : new Date(Number(v));
  if (name === 'Null') return null;
  if (typeof v === 'string') return v;
  // Binary, uuid and compound values cannot appear in a SQL expression; the property reads as absent.
  return undefined;
}

/** Application properties with their SQL values, in wire order. */
function typedAppProps(section: Buffer | undefined): Map<string, SqlValue> {
  const out = new Map<string, SqlValue>();
  const entries = sectionEntries(section);
  for (let i = 0; i + 1 < entries.length; i += 2) {
    const v = toSqlValue(entries[i + 1] as Typed);
    if (v !== undefined) out.set(String((entries[i] as Typed).value), v);
  }
  return out;
}

/** What a rule sees of a message on its way into a subscription. */
export function viewOf(p: ParsedMessage, now: number): MessageView {
  const f = p.filterFields;
  const sys: Record<string, SqlValue | undefined> = {
    MessageId: f.messageId,
    CorrelationId: f.correlationId,
    To: f.to,
    ReplyTo: f.replyTo,
    Label: f.label,
    SessionId: f.sessionId,
    ReplyToSessionId: f.replyToSessionId,
    ContentType: f.contentType,
    Size: BigInt(p.size),
    DeliveryCount: 0n,
    EnqueuedTimeUtc: new Date(now),
    ScheduledEnqueueTimeUtc: p.scheduledEnqueueTime === undefined ? undefined : new Date(p.scheduledEnqueueTime),
  };
  return { sys: (name) => sys[name], user: typedAppProps(p.sections.appProps) };
}

function toTyped(v: SqlValue): Typed {
  if (v === null) return types.Null();
  if (typeof v === 'bigint') return types.wrap_long(Number(v));
  if (typeof v === 'number') return types.wrap_double(v);
  if (typeof v === 'boolean') return types.wrap_boolean(v);
  if (v instanceof Date) return types.wrap_timestamp(v.getTime());
  return types.wrap_string(v);
}

/** Where each settable system property lives in the AMQP properties section, and in the filter fields. */
const SYSTEM_FIELDS: Record<string, { amqp: string; filter: keyof FilterFields }> = {
  Label: { amqp: 'subject', filter: 'label' },
  To: { amqp: 'to', filter: 'to' },
  ReplyTo: { amqp: 'reply_to', filter: 'replyTo' },
  CorrelationId: { amqp: 'correlation_id', filter: 'correlationId' },
  ContentType: { amqp: 'content_type', filter: 'contentType' },
  MessageId: { amqp: 'message_id', filter: 'messageId' },
  SessionId: { amqp: 'group_id', filter: 'sessionId' },
  ReplyToSessionId: { amqp: 'reply_to_group_id', filter: 'replyToSessionId' },
};

/** A copy of the message with system properties a rule action set (`SET sys.Label = …`) or removed. */
function withSystemEdit(p: ParsedMessage, system: PropertyEdit['system']): ParsedMessage {
  if (system.size === 0) return p;
  const fields: Record<string, unknown> = {
    ...(messageCodec.decode(p.sections.properties) as unknown as Record<string, unknown>),
  };
  const filterFields: FilterFields = { ...p.filterFields };
  for (const [name, value] of system) {
    const where = SYSTEM_FIELDS[name] as { amqp: string; filter: keyof FilterFields };
    const text = value === null ? undefined : value instanceof Date ? value.toISOString() : String(value);
    if (text === undefined) delete fields[where.amqp];
    else fields[where.amqp] = text;
    (filterFields as unknown as Record<string, unknown>)[where.filter] = text;
  }
  const properties = encodeProperties(fields);
  const messageId = filterFields.messageId ?? p.messageId;
  return {
    ...p,
    messageId,
    sessionId: filterFields.sessionId,
    sections: { ...p.sections, properties },
    filterFields: { ...filterFields, messageId },
    size: p.size - p.sections.properties.length + properties.length,
  };
}

/** A copy of the message with a rule action's edit applied; untouched properties keep their AMQP types. */
export function withEdit(original: ParsedMessage, edit: PropertyEdit): ParsedMessage {
  const p = withSystemEdit(original, edit.system);
  const entries = sectionEntries(p.sections.appProps);
  const out: Typed[] = [];
  for (let i = 0; i + 1 < entries.length; i += 2) {
    const key = String((entries[i] as Typed).value);
    if (!edit.set.has(key) && !edit.removed.has(key)) out.push(entries[i] as Typed, entries[i + 1] as Typed);
  }
  for (const [k, v] of edit.set) out.push(types.wrap_string(k), toTyped(v));
  const appProps = writeSection(Section.applicationProperties, types.Map32(out) as Typed);
  const appValues: Record<string, unknown> = { ...p.filterFields.appProps };
  for (const k of edit.removed) delete appValues[k];
  for (const [k, v] of edit.set) appValues[k] = typeof v === 'bigint' ? Number(v) : v;
  const size = p.size - (p.sections.appProps?.length ?? 0) + appProps.length;
  return {
    ...p,
    sections: { ...p.sections, appProps },
    filterFields: { ...p.filterFields, appProps: appValues },
    size,
  };
}
