/** Limits of the public message contracts (README, "Contracts and processing rules"). */

/** Longest `entryId`: it is also the root of the broker `messageId` (`<entryId>:<hash16>`, at most 128). */
export const ENTRY_ID_MAX_LENGTH = 100;
/** Longest `orderId` / `ledgerId`: the Service Bus SessionId and MessageId limit. */
export const ORDER_ID_MAX_LENGTH = 128;
/**
 * Longest `transactionId` and `customerId` where they are introduced (`TransactionAdded`, `OrderCreated`), in UTF-8
 * bytes: the limits they protect are in bytes (a 100-character id of `€` is 300 bytes). With the order bounds below
 * they keep an order within Azure's limits.
 */
export const ID_MAX_BYTES = 100;
/** `currency`: three upper-case letters, the ISO 4217 form (membership in the ISO list is not checked). */
export const CURRENCY_PATTERN = /^[A-Z]{3}$/;
/**
 * Most transactions one order holds: a `TransactionAdded` beyond it is `InvalidTransition` (rule 7). With the
 * field lengths above and {@link ORDER_MAX_PARKED} it keeps the order document and every transactional batch
 * (2 MB) and every `order-events` message (256 KB) within Azure's limits however long an order lives, whatever its
 * text (`test/integration/orderSizes.test.ts` measures them with the worst-case text).
 */
export const ORDER_MAX_TRANSACTIONS = 1_000;
/** Most entries parked on one order: a gap entry beyond it is dead-lettered `InvalidTransition` (rules 7, 10). */
export const ORDER_MAX_PARKED = 1_000;
/** Fewest and most entries in one ledger (rule 9). */
export const LEDGER_MIN_ENTRIES = 1;
export const LEDGER_MAX_ENTRIES = 5_000;
/**
 * Largest ledger body in bytes (UTF-8 JSON): the Standard tier's 256 KB message size, so any ledger we accept
 * over HTTP also fits on the `ledger` queue. `POST /api/ledgers` answers 413 above it; the splitter dead-letters
 * it as `SchemaValidationFailed`. Both limits apply: with compact entries (about 80 bytes each) the byte limit
 * is reached first, near 3,000 entries.
 */
export const LEDGER_MAX_BYTES = 262_144;
