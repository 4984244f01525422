import { z } from 'zod';
import type { ValidationIssue } from '../errors.js';
import { bodyByteLength, normaliseBody } from './body.js';
import { entrySchema, type Entry } from '../entryTypes/registry.js';
import { orderIdSchema } from './entry.js';
import { toValidationIssues } from './issues.js';
import { LEDGER_MAX_BYTES, LEDGER_MAX_ENTRIES, LEDGER_MIN_ENTRIES } from './limits.js';

/**
 * A ledger: 1–5,000 entries, no repeated `entryId`, no repeated (`orderId`, `sequence`), and each order's
 * entries in increasing `sequence` order (rule 9). Strict: unknown properties fail.
 */
export const ledgerSchema = z
  .strictObject({
    ledgerId: orderIdSchema,
    entries: z.array(entrySchema).min(LEDGER_MIN_ENTRIES).max(LEDGER_MAX_ENTRIES),
  })
  .superRefine((ledger, ctx) => {
    const entryIds = new Map<string, number>();
    const lastSequence = new Map<string, { sequence: number; index: number }>();
    ledger.entries.forEach((entry, index) => {
      const seenAt = entryIds.get(entry.entryId);
      if (seenAt !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['entries', index, 'entryId'],
          message: `Repeats entries[${seenAt}].entryId`,
        });
      } else {
        entryIds.set(entry.entryId, index);
      }
      const previous = lastSequence.get(entry.orderId);
      if (previous !== undefined && entry.sequence === previous.sequence) {
        ctx.addIssue({
          code: 'custom',
          path: ['entries', index, 'sequence'],
          message: `Repeats sequence ${entry.sequence} of order ${entry.orderId} (entries[${previous.index}])`,
        });
      } else if (previous !== undefined && entry.sequence < previous.sequence) {
        ctx.addIssue({
          code: 'custom',
          path: ['entries', index, 'sequence'],
          message: `Order ${entry.orderId} goes back from sequence ${previous.sequence} (entries[${previous.index}]) to ${entry.sequence}`,
        });
      }
      if (previous === undefined || entry.sequence > previous.sequence) {
        lastSequence.set(entry.orderId, { sequence: entry.sequence, index });
      }
    });
  });

/** A validated ledger. */
export type Ledger = z.infer<typeof ledgerSchema>;

/** Outcome of a validation: the typed value, or every issue found. */
export type Validated<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

/**
 * Validates a ledger body in any shape (object, string, bytes): size first (at most
 * {@link LEDGER_MAX_BYTES}), then JSON, then the schema and the cross-entry rules.
 */
export function validateLedger(body: unknown): Validated<Ledger> {
  const bytes = bodyByteLength(body);
  if (bytes > LEDGER_MAX_BYTES) {
    return {
      ok: false,
      issues: [{ path: '', message: `The ledger is ${bytes} bytes; at most ${LEDGER_MAX_BYTES} are accepted` }],
    };
  }
  return validate(ledgerSchema, body);
}

/** Validates one order entry body in any shape (rule 6, the schema part). */
export function validateEntry(body: unknown): Validated<Entry> {
  return validate(entrySchema, body);
}

/** True when a ledger body is too large to accept (`POST /api/ledgers` answers 413). */
export function exceedsLedgerByteLimit(body: unknown): boolean {
  return bodyByteLength(body) > LEDGER_MAX_BYTES;
}

/** A body in any shape, normalised to JSON, against `schema`. */
function validate<T>(schema: z.ZodType<T>, body: unknown): Validated<T> {
  const normalised = normaliseBody(body);
  if (!normalised.ok) return normalised;
  const parsed = schema.safeParse(normalised.value);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, issues: toValidationIssues(parsed.error.issues) };
}
