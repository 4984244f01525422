import { z } from 'zod';
import { CURRENCY_PATTERN, CUSTOMER_ID_MAX_LENGTH, ENTRY_ID_MAX_LENGTH, ORDER_ID_MAX_LENGTH, TRANSACTION_ID_MAX_LENGTH } from './limits.js';

/** `entryId`: the business idempotency key, 1–100 characters of `[A-Za-z0-9._-]` (safe in Cosmos ids). */
export const entryIdSchema = z
  .string()
  .min(1)
  .max(ENTRY_ID_MAX_LENGTH)
  .regex(/^[A-Za-z0-9._-]*$/, { error: 'Only letters, digits, ".", "_" and "-" are allowed' });

/** `orderId` / `ledgerId`: 1–128 characters (Service Bus SessionId / MessageId limit). */
export const orderIdSchema = z.string().min(1).max(ORDER_ID_MAX_LENGTH);

/** Money: a safe integer of minor units; zero and negative (credits) are allowed, floats are not. */
export const amountSchema = z.int();

const sequenceSchema = z.int().min(1);
const transactionIdSchema = z.string().min(1).max(TRANSACTION_ID_MAX_LENGTH);
const customerIdSchema = z.string().min(1).max(CUSTOMER_ID_MAX_LENGTH);
const currencySchema = z.string().regex(CURRENCY_PATTERN, { error: 'Expected three upper-case letters (ISO 4217), such as EUR' });

function entryOf<T extends string, D extends z.ZodType>(type: T, data: D) {
  return z.strictObject({
    entryId: entryIdSchema,
    orderId: orderIdSchema,
    sequence: sequenceSchema,
    type: z.literal(type),
    data,
  });
}

/** `OrderCreated { customerId, currency }`: `customerId` 1–100 characters, `currency` like `EUR`. */
export const orderCreatedSchema = entryOf('OrderCreated', z.strictObject({ customerId: customerIdSchema, currency: currencySchema }));

/** `TransactionAdded { transactionId, amount }`: `transactionId` 1–100 characters. */
export const transactionAddedSchema = entryOf(
  'TransactionAdded',
  z.strictObject({ transactionId: transactionIdSchema, amount: amountSchema }),
);

/** `TransactionAmended { transactionId, amount }`: the new amount replaces the old one. */
export const transactionAmendedSchema = entryOf(
  'TransactionAmended',
  z.strictObject({ transactionId: transactionIdSchema, amount: amountSchema }),
);

/** `OrderDeleted {}`: the order's end-of-sequence marker. */
export const orderDeletedSchema = entryOf('OrderDeleted', z.strictObject({}));

/** One ledger entry = the body of one order entry message. Strict: unknown properties fail. */
export const entrySchema = z.discriminatedUnion('type', [
  orderCreatedSchema,
  transactionAddedSchema,
  transactionAmendedSchema,
  orderDeletedSchema,
]);

/** A validated ledger entry. */
export type Entry = z.infer<typeof entrySchema>;
/** The entry types, in the order an order's life usually sees them. */
export const EntryType = {
  OrderCreated: 'OrderCreated',
  TransactionAdded: 'TransactionAdded',
  TransactionAmended: 'TransactionAmended',
  OrderDeleted: 'OrderDeleted',
} as const;
/** One of {@link EntryType}. */
export type EntryType = Entry['type'];
