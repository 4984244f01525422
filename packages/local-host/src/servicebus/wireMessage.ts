import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import Long from 'long';
import rhea from 'rhea';

/**
 * A received message as it crosses from the trigger thread to the main thread: every field the SDK set but its
 * delivery (the link's, which settles it: that stays with the receiver), the sequence number as a decimal string,
 * and each binary value copied to its own bytes (a Buffer of the SDK's is a view into a whole frame, which a
 * structured clone would copy entire).
 */
export interface WireMessage extends Omit<ServiceBusReceivedMessage, 'sequenceNumber'> {
  sequenceNumber?: string;
  /** The raw AMQP body was one of rhea's sections (a data or sequence body), rebuilt as one. */
  rawBodySection: boolean;
}

// rhea keeps its Section class private; a data section gives its prototype, to rebuild a raw body as the SDK had it.
const sectionPrototype = Object.getPrototypeOf(rhea.message.data_section(Buffer.alloc(0))) as object;

/** The trigger thread's side: the message as it crosses the port. */
export function toWireMessage(message: ServiceBusReceivedMessage): WireMessage {
  const { sequenceNumber, ...fields } = message;
  delete (fields as { delivery?: unknown }).delivery;
  const copies = new Map<Uint8Array, Uint8Array>();
  return {
    ...(detachBytes(fields, copies) as Omit<ServiceBusReceivedMessage, 'sequenceNumber'>),
    sequenceNumber: sequenceNumber?.toString(),
    rawBodySection: Object.getPrototypeOf(message._rawAmqpMessage?.body ?? {}) === sectionPrototype,
  };
}

/**
 * The main thread's side: the message as the SDK delivered it to the trigger thread (Buffers, Dates, a `Long`
 * sequence number, the raw AMQP message with its body section), for the trigger's input and its metadata.
 */
export function fromWireMessage(wire: WireMessage): ServiceBusReceivedMessage {
  const { sequenceNumber, rawBodySection, ...fields } = wire;
  const message = attachBytes(fields, new Map()) as ServiceBusReceivedMessage;
  if (sequenceNumber !== undefined)
    (message as { sequenceNumber?: Long }).sequenceNumber = Long.fromString(sequenceNumber);
  const raw = message._rawAmqpMessage as { body?: unknown } | undefined;
  if (rawBodySection && raw?.body) raw.body = Object.assign(Object.create(sectionPrototype) as object, raw.body);
  return message;
}

/** A copy of `value` whose every binary is a Uint8Array of its own bytes; one value seen twice stays one. */
function detachBytes(value: unknown, copies: Map<Uint8Array, Uint8Array>): unknown {
  if (value instanceof Uint8Array) {
    let copy = copies.get(value);
    if (copy === undefined) copies.set(value, (copy = new Uint8Array(value)));
    return copy;
  }
  if (Array.isArray(value)) return value.map((item) => detachBytes(item, copies));
  if (typeof value !== 'object' || value === null || value instanceof Date) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) copy[key] = detachBytes(inner, copies);
  return copy;
}

/** `value` with every Uint8Array a Buffer again (over the same bytes): rhea decodes every binary as a Buffer. */
function attachBytes(value: unknown, buffers: Map<Uint8Array, Buffer>): unknown {
  if (value instanceof Uint8Array) {
    let buffer = buffers.get(value);
    if (buffer === undefined) buffers.set(value, (buffer = Buffer.from(value.buffer, value.byteOffset, value.length)));
    return buffer;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) value[i] = attachBytes(value[i], buffers);
    return value;
  }
  if (typeof value !== 'object' || value === null || value instanceof Date) return value;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) record[key] = attachBytes(record[key], buffers);
  return record;
}
