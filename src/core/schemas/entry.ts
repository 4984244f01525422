import { z } from 'zod';
import { CURRENCY_PATTERN, ENTRY_ID_MAX_LENGTH, ID_MAX_BYTES, ORDER_ID_MAX_LENGTH } from './limits.js';

/** `entryId`: the business idempotency key, 1–100 characters of `[A-Za-z0-9._-]` (safe in Cosmos ids). */
const entryIdSchema = z
  .string()
  .min(1)
  .max(ENTRY_ID_MAX_LENGTH)
  .regex(/^[A-Za-z0-9._-]*$/, { error: 'Only letters, digits, ".", "_" and "-" are allowed' });

/** Text that is well-formed UTF-16: no lone surrogate, which no UTF-8 byte sequence (and no JSON reader) can carry. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const wellFormed = (text: string) => !LONE_SURROGATE.test(text);
const WELL_FORMED = { error: 'Contains a lone surrogate (not valid Unicode)' };

/**
 * An id an entry names rather than introduces (`TransactionAmended`'s `transactionId`): any well-formed text; whether
 * the order holds it is rule 7's question, not the schema's (the byte bound of {@link introducedId} applies where an
 * id is introduced).
 */
export const namedId = z.string().min(1).refine(wellFormed, WELL_FORMED);

/** `orderId` / `ledgerId`: 1–128 characters (Service Bus SessionId / MessageId limit), well-formed. */
export const orderIdSchema = z.string().min(1).max(ORDER_ID_MAX_LENGTH).refine(wellFormed, WELL_FORMED);

/** Money: a safe integer of minor units; zero and negative (credits) are allowed, floats are not. */
export const amountSchema = z.int();

const sequenceSchema = z.int().min(1);

/** C0 and C1 control characters: JSON writes each as a 6-byte escape, and no id needs one. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * An id introduced by an entry (`customerId`, `TransactionAdded`'s `transactionId`): 1 to 100 UTF-8 bytes, no control
 * characters, no lone surrogates. Bytes, not characters: the limits these ids protect are in bytes.
 */
export function introducedId() {
  return z
    .string()
    .min(1)
    .refine(wellFormed, WELL_FORMED)
    .refine((text) => !CONTROL_CHARACTER.test(text), {
      error: 'Contains a control character (U+0000–U+001F, U+007F–U+009F)',
    })
    .refine((text) => Buffer.byteLength(text, 'utf8') <= ID_MAX_BYTES, {
      error: (issue) =>
        `Is ${Buffer.byteLength(String(issue.input), 'utf8')} bytes in UTF-8; at most ${ID_MAX_BYTES} bytes are allowed`,
    });
}
/** `currency`: three upper-case letters (ISO 4217 form). */
export const currencySchema = z
  .string()
  .regex(CURRENCY_PATTERN, { error: 'Expected three upper-case letters (ISO 4217), such as EUR' });

/** The schema of an entry of `type`: the fields every entry has, and its `data`. Strict: unknown properties fail. */
export function entryOf<T extends string, D extends z.ZodType>(type: T, data: D) {
  return z.strictObject({
    entryId: entryIdSchema,
    orderId: orderIdSchema,
    sequence: sequenceSchema,
    type: z.literal(type),
    data,
  });
}

/** The schema of an entry of some type (see `entryOf`). */
export type EntrySchema = ReturnType<typeof entryOf<string, z.ZodType>>;
