import type { ValidationIssue } from '../errors.js';
import { entryMessageId, requestHash } from '../hash.js';
import type { Entry, EntryType } from '../entryTypes/registry.js';
import { validateLedger, type Ledger } from '../schemas/ledger.js';

/** One order entry message to send to `orders`, as a plain object the adapter hands to the SDK. */
export interface PlannedEntryMessage {
  /** `<entryId>:<first 16 hex digits of the request hash>`. */
  messageId: string;
  /** The `orderId`. */
  sessionId: string;
  /** The `ledgerId`. */
  correlationId: string;
  contentType: 'application/json';
  applicationProperties: { sequence: number; type: EntryType; handOff?: true };
  body: Entry;
}

/**
 * Application property marking an order's last entry in its ledger: the processor releases the session after it,
 * so the slot takes the next order at once instead of idling `sessionIdleTimeout` until the next ledger brings this
 * order more entries. Optional for other producers; absent means no hint.
 */
export const HAND_OFF_PROPERTY = 'handOff';

/** Outcome of {@link planLedger}: the messages in ledger order, or the issues that dead-letter the ledger (rule 9). */
export type LedgerPlan =
  | { ok: true; ledger: Ledger; messages: PlannedEntryMessage[] }
  | { ok: false; issues: ValidationIssue[]; description: string };

/**
 * The ledger splitter's decision: validate the whole ledger (size, JSON, schema, cross-entry rules) and plan one
 * message per entry, preserving ledger order (so each order's entries keep theirs). Nothing is planned for an
 * invalid ledger: it is dead-lettered whole as `SchemaValidationFailed`. Re-planning the same ledger yields the
 * same messages, so a redelivered ledger's copies are dropped by broker duplicate detection or rule 2.
 */
export function planLedger(body: unknown): LedgerPlan {
  const validated = validateLedger(body);
  if (!validated.ok) {
    const description = validated.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
    return { ok: false, issues: validated.issues, description };
  }
  const ledger = validated.value;
  const messages = ledger.entries.map((entry) => planEntryMessage(entry, ledger.ledgerId));
  // Each order's last message in the ledger (a later one of the same session replaces an earlier one in the map).
  const lastOfOrder = new Map(messages.map((message) => [message.sessionId, message]));
  for (const message of lastOfOrder.values()) message.applicationProperties.handOff = true;
  return { ok: true, ledger, messages };
}

/** The message for one validated entry of ledger `ledgerId`. */
function planEntryMessage(entry: Entry, ledgerId: string): PlannedEntryMessage {
  return {
    messageId: entryMessageId(entry.entryId, requestHash(entry)),
    sessionId: entry.orderId,
    correlationId: ledgerId,
    contentType: 'application/json',
    applicationProperties: { sequence: entry.sequence, type: entry.type },
    body: entry,
  };
}
