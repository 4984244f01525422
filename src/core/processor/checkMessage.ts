/**
 * What an `orders` message brings (rule 6's input): its body normalised, checked against the entry schema and hashed —
 * or why it is not an entry, with what can still be read of it for logs and rule 10 — and where it comes from.
 */
import { readResubmitCount, requestHash } from '../hash.js';
import { normaliseBody } from '../schemas/body.js';
import { validateEntry } from '../schemas/ledger.js';
import { messageTraceparent } from '../traceContext.js';
import type { CheckedEntry } from './decide.js';
import type { EntryOrigin } from './orderWrites.js';

/** A message as the host received it, whatever the host. */
export interface ReceivedOrderMessage {
  /** Object, string, `Buffer`/`Uint8Array`/`ArrayBuffer`: normalised before validating and hashing. */
  body: unknown;
  messageId?: string;
  sessionId?: string;
  correlationId?: string;
  applicationProperties?: Readonly<Record<string, unknown>>;
  deliveryCount?: number;
}

/** The keys logs and results name a message by: from the body where it has them. */
export interface MessageKeys {
  orderId: string | undefined;
  entryId: string | undefined;
  sequence: number | undefined;
}

/**
 * Validates `message`'s body as an entry and hashes it; whether the entry belongs to the message's session is
 * rule 6's to decide (`decide.ts`).
 */
export function checkMessage(message: ReceivedOrderMessage): {
  entry: CheckedEntry;
  keys: MessageKeys;
  origin: EntryOrigin;
} {
  const origin: EntryOrigin = {
    correlationId: message.correlationId,
    messageId: message.messageId,
    // Kept on the entry's documents, so the outbox continues this message's trace.
    traceparent: messageTraceparent(message.applicationProperties),
    resubmitCount: readResubmitCount(message.applicationProperties),
  };
  const validated = validateEntry(message.body);
  if (validated.ok) {
    const entry = validated.value;
    return {
      entry: { valid: true, entry, hash: requestHash(entry) },
      keys: { orderId: entry.orderId, entryId: entry.entryId, sequence: entry.sequence },
      origin,
    };
  }
  const keys = readableKeys(message);
  const why = validated.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
  // Rule 10: an entry whose sequence can't be read, or that names another order than its session, holds nothing.
  const ofSession = keys.bodyOrderId === message.sessionId && message.sessionId !== undefined;
  return {
    entry: { valid: false, why, sequence: ofSession ? keys.bodySequence : undefined },
    keys: { orderId: keys.orderId, entryId: keys.entryId, sequence: keys.sequence },
    origin,
  };
}

/**
 * Best-effort keys of an invalid message: from the body where it is JSON and has them, else the session, the
 * `messageId` (the dedup key of a body that cannot be parsed) and the `sequence` application property.
 */
function readableKeys(message: ReceivedOrderMessage) {
  const parsed = normaliseBody(message.body);
  const body =
    parsed.ok && typeof parsed.value === 'object' && parsed.value !== null
      ? (parsed.value as Record<string, unknown>)
      : {};
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const int = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined);
  const bodyOrderId = text(body.orderId);
  const bodySequence = int(body.sequence);
  return {
    bodyOrderId,
    bodySequence,
    orderId: bodyOrderId ?? message.sessionId,
    entryId: text(body.entryId) ?? message.messageId,
    sequence: bodySequence ?? int(message.applicationProperties?.sequence),
  };
}
