import { randomUUID } from 'node:crypto';
import rhea from 'rhea';
import type { Typed } from 'rhea';
import { amqp as types, messageCodec as codec } from './amqpTypes.js';

/** AMQP section descriptor codes (AMQP 1.0 §3.2). */
export const Section = {
  header: 0x70,
  deliveryAnnotations: 0x71,
  messageAnnotations: 0x72,
  properties: 0x73,
  applicationProperties: 0x74,
  data: 0x75,
  sequence: 0x76,
  value: 0x77,
  footer: 0x78,
} as const;
const SYMBOLIC: Record<string, number> = {
  'amqp:header:list': 0x70,
  'amqp:delivery-annotations:map': 0x71,
  'amqp:message-annotations:map': 0x72,
  'amqp:properties:list': 0x73,
  'amqp:application-properties:map': 0x74,
  'amqp:data:binary': 0x75,
  'amqp:amqp-sequence:list': 0x76,
  'amqp:amqp-value:*': 0x77,
  'amqp:footer:map': 0x78,
};

/** Header fields kept from the sender and given back as sent (delivery-count is the broker's). */
export interface HeaderFields {
  durable?: boolean;
  priority?: number;
  ttl?: number;
  firstAcquirer?: boolean;
}

/**
 * A message as the broker keeps it: the sender's sections as raw bytes, so application properties, body and
 * ids go back out with their original AMQP types (rhea's decoder would turn a long into a number).
 */
export interface WireSections {
  header: HeaderFields;
  /** Full message-annotations section as received, or undefined. */
  annotations?: Buffer;
  /** Full properties section. */
  properties: Buffer;
  /** Full application-properties section, or undefined. */
  appProps?: Buffer;
  /** Body sections and footer, verbatim. */
  body: Buffer;
}

/** The fields of an incoming message that drive broker behaviour. */
export interface ParsedMessage {
  sections: WireSections;
  messageId: string;
  sessionId: string | undefined;
  /** `x-opt-partition-key`: groups messages of a partitioned entity. */
  partitionKey: string | undefined;
  ttlMs: number | undefined;
  scheduledEnqueueTime: number | undefined;
  /** Values correlation filters look at. */
  filterFields: FilterFields;
  size: number;
}

/** System and user properties a correlation filter can match. */
export interface FilterFields {
  correlationId?: string;
  label?: string;
  contentType?: string;
  to?: string;
  replyTo?: string;
  replyToSessionId?: string;
  messageId: string;
  sessionId?: string;
  appProps: Record<string, unknown>;
}

function descriptorCode(t: Typed): number | undefined {
  const d = t.descriptor as { value?: unknown } | undefined;
  const v = d?.value;
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return SYMBOLIC[v];
  return undefined;
}

function idToString(id: unknown): string | undefined {
  if (id === undefined || id === null || id === '') return undefined;
  if (Buffer.isBuffer(id)) return id.length === 16 ? rhea.uuid_to_string(id) : id.toString('hex');
  return String(id);
}

/** Splits an encoded message into its raw sections. */
function splitSections(raw: Buffer): Map<number, Buffer> & { bodyStart: number } {
  const reader = new types.Reader(raw);
  const found = new Map<number, Buffer>() as Map<number, Buffer> & { bodyStart: number };
  found.bodyStart = raw.length;
  while (reader.remaining() > 0) {
    const start = reader.position;
    const code = descriptorCode(reader.read());
    if (code === undefined) throw new Error('expected a described message section');
    if (code >= Section.data) {
      found.bodyStart = start;
      break;
    }
    found.set(code, raw.subarray(start, reader.position));
  }
  return found;
}

/** Parses one encoded message (as received on a link or inside a batch). */
export function parseMessage(input: Buffer): ParsedMessage {
  // Own copy: the input is often a slice of a socket read or of a whole batch, which would stay alive with it.
  const raw = Buffer.from(input);
  const decoded = codec.decode(raw) as unknown as Record<string, unknown> & {
    message_annotations?: Record<string, unknown>;
    application_properties?: Record<string, unknown>;
  };
  const parts = splitSections(raw);
  let messageId = idToString(decoded.message_id);
  let properties = parts.get(Section.properties);
  if (messageId === undefined || properties === undefined) {
    // Service Bus assigns a message-id when the sender left it empty; rebuild the properties section.
    messageId = randomUUID().replace(/-/g, '');
    const props = properties ? (codec.decode(properties) as unknown as Record<string, unknown>) : {};
    properties = encodeProperties({ ...props, message_id: messageId });
  }
  const annotations = decoded.message_annotations ?? {};
  const scheduled = annotations['x-opt-scheduled-enqueue-time'];
  const ttl = typeof decoded.ttl === 'number' ? decoded.ttl : undefined;
  const sessionId = typeof decoded.group_id === 'string' ? decoded.group_id : undefined;
  return {
    sections: {
      header: {
        durable: decoded.durable as boolean | undefined,
        priority: decoded.priority as number | undefined,
        ttl,
        firstAcquirer: decoded.first_acquirer as boolean | undefined,
      },
      annotations: parts.get(Section.messageAnnotations),
      properties,
      appProps: parts.get(Section.applicationProperties),
      body: raw.subarray(parts.bodyStart),
    },
    messageId,
    sessionId,
    partitionKey:
      typeof annotations['x-opt-partition-key'] === 'string' ? annotations['x-opt-partition-key'] : undefined,
    ttlMs: ttl,
    scheduledEnqueueTime:
      scheduled instanceof Date ? scheduled.getTime() : typeof scheduled === 'number' ? scheduled : undefined,
    filterFields: {
      correlationId: idToString(decoded.correlation_id),
      label: decoded.subject as string | undefined,
      contentType: decoded.content_type as string | undefined,
      to: decoded.to as string | undefined,
      replyTo: decoded.reply_to as string | undefined,
      replyToSessionId: decoded.reply_to_group_id as string | undefined,
      messageId,
      sessionId,
      appProps: decoded.application_properties ?? {},
    },
    size: raw.length,
  };
}

/** Encodes a properties section from plain fields (`message_id`, `subject`, …). */
export function encodeProperties(props: Record<string, unknown>): Buffer {
  // rhea encodes the properties section from plain fields; its trailing (null) body section is dropped.
  const encoded = codec.encode(props as never);
  const parts = splitSections(encoded);
  return parts.get(Section.properties) as Buffer;
}

/** Splits a batch (message format 0x80013700): each data section holds one encoded message. */
export function splitBatch(raw: Buffer): Buffer[] {
  const reader = new types.Reader(raw);
  const out: Buffer[] = [];
  while (reader.remaining() > 0) {
    const section = reader.read();
    if (descriptorCode(section) !== Section.data) continue;
    const v = section.value as Buffer | Typed;
    out.push(Buffer.isBuffer(v) ? v : (v.value as Buffer));
  }
  return out;
}

/** Per-delivery facts the broker stamps on a message. */
export interface DeliveryStamp {
  sequenceNumber: number;
  enqueuedTime: number;
  deliveryCount: number;
  state: 0 | 1 | 2;
  lockToken?: Buffer;
  lockedUntil?: number;
  deadLetterSource?: string;
}

const OWNED = new Set([
  'x-opt-sequence-number',
  'x-opt-enqueued-time',
  'x-opt-locked-until',
  'x-opt-lock-token',
  'x-opt-message-state',
  'x-opt-deadletter-source',
  'x-opt-enqueue-sequence-number',
]);

export function sectionEntries(section: Buffer | undefined): Typed[] {
  if (!section) return [];
  // A described section reads back as the map itself, carrying its descriptor.
  const value = new types.Reader(section).read().value as Typed[] | Typed;
  return Array.isArray(value) ? value : ((value.value as Typed[]) ?? []);
}

export function writeSection(code: number, value: Typed): Buffer {
  const writer = new types.Writer();
  writer.write(types.described(types.wrap_ulong(code), value) as Typed);
  return writer.toBuffer();
}

function optional(v: Typed | undefined): Typed {
  return v ?? types.Null();
}

/** Encodes a message for delivery: fresh header and annotations, the sender's other sections verbatim. */
export function renderMessage(s: WireSections, stamp: DeliveryStamp): Buffer {
  const h = s.header;
  const header = writeSection(
    Section.header,
    types.List32([
      optional(h.durable === undefined ? undefined : types.wrap_boolean(h.durable)),
      optional(h.priority === undefined ? undefined : types.wrap_ubyte(h.priority)),
      optional(h.ttl === undefined ? undefined : types.wrap_uint(h.ttl)),
      types.wrap_boolean(h.firstAcquirer ?? stamp.deliveryCount === 0),
      types.wrap_uint(stamp.deliveryCount),
    ]) as Typed,
  );
  const entries = sectionEntries(s.annotations);
  const kept: Typed[] = [];
  for (let i = 0; i + 1 < entries.length; i += 2) {
    const key = entries[i] as Typed;
    if (!OWNED.has(String(key.value))) kept.push(key, entries[i + 1] as Typed);
  }
  const add = (k: string, v: Typed): void => void kept.push(types.wrap_symbol(k), v);
  add('x-opt-sequence-number', types.wrap_long(stamp.sequenceNumber));
  add('x-opt-enqueued-time', types.wrap_timestamp(stamp.enqueuedTime));
  if (stamp.state !== 0) add('x-opt-message-state', types.wrap_int(stamp.state));
  if (stamp.lockToken) add('x-opt-lock-token', types.wrap_uuid(stamp.lockToken));
  if (stamp.lockedUntil !== undefined) add('x-opt-locked-until', types.wrap_timestamp(stamp.lockedUntil));
  if (stamp.deadLetterSource !== undefined) add('x-opt-deadletter-source', types.wrap_string(stamp.deadLetterSource));
  const annotations = writeSection(Section.messageAnnotations, types.Map32(kept) as Typed);
  const parts = [header, annotations, s.properties];
  if (s.appProps) parts.push(s.appProps);
  parts.push(s.body);
  return Buffer.concat(parts);
}

/**
 * Application properties to set, each an AMQP value exactly as the client encoded it: decoding to JS and wrapping
 * again would turn a .NET `int` into a `uint`, a whole `double` into an integer, a `long` into whatever fits.
 */
export type TypedProps = Map<string, Typed>;

/** The entries of an AMQP map value as {@link TypedProps} (keys read as strings); empty for null or absent. */
export function typedEntries(map: Typed | undefined): TypedProps {
  const out: TypedProps = new Map();
  const items = map?.value;
  if (!Array.isArray(items)) return out;
  for (let i = 0; i + 1 < items.length; i += 2) out.set(String((items[i] as Typed).value), items[i + 1] as Typed);
  return out;
}

/** Plain values (the broker's own, e.g. a dead-letter reason) as {@link TypedProps}. */
export function wrapProps(plain: Record<string, unknown>): TypedProps {
  const out: TypedProps = new Map();
  for (const [k, v] of Object.entries(plain)) if (v !== undefined) out.set(k, types.wrap(v));
  return out;
}

/** Returns a new application-properties section with `changes` merged over the existing entries. */
export function mergeAppProps(section: Buffer | undefined, changes: TypedProps): Buffer {
  const entries = sectionEntries(section);
  const out: Typed[] = [];
  for (let i = 0; i + 1 < entries.length; i += 2) {
    const key = entries[i] as Typed;
    if (!changes.has(String(key.value))) out.push(key, entries[i + 1] as Typed);
  }
  for (const [k, v] of changes) out.push(types.wrap_string(k), v);
  return writeSection(Section.applicationProperties, types.Map32(out) as Typed);
}

/** One entry of a message's map body (an `amqp-value` section), typed as sent; a `$management` request field. */
export function bodyMapEntry(raw: Buffer, key: string): Typed | undefined {
  const reader = new types.Reader(raw.subarray(splitSections(raw).bodyStart));
  if (reader.remaining() === 0) return undefined;
  const section = reader.read();
  if (descriptorCode(section) !== Section.value) return undefined;
  // A described map reads back as the map itself, carrying its descriptor.
  return typedEntries(section).get(key);
}

/** Reads an application property of a stored message (used by filters after a merge). */
export function readAppProps(section: Buffer | undefined): Record<string, unknown> {
  if (!section) return {};
  return (
    (codec.decode(section) as unknown as { application_properties?: Record<string, unknown> }).application_properties ??
    {}
  );
}
