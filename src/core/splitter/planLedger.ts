import type { ValidationIssue } from '../errors.js';
import { entryMessageId, requestHash } from '../hash.js';
import type { Entry, EntryType } from '../schemas/entry.js';
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
  applicationProperties: { sequence: number; type: EntryType };
  body: Entry;
}

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
  return { ok: true, ledger, messages: ledger.entries.map((entry) => planEntryMessage(entry, ledger.ledgerId)) };
}

/** The message for one validated entry of ledger `ledgerId`. */
export function planEntryMessage(entry: Entry, ledgerId: string): PlannedEntryMessage {
  return {
    messageId: entryMessageId(entry.entryId, requestHash(entry)),
    sessionId: entry.orderId,
    correlationId: ledgerId,
    contentType: 'application/json',
    applicationProperties: { sequence: entry.sequence, type: entry.type },
    body: entry,
  };
}
