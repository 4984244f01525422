/** Limits of the public message contracts (design: "Message contracts"). */

/** Longest `entryId`: it is also the root of the broker `messageId` (`<entryId>:<hash16>`, at most 128). */
export const ENTRY_ID_MAX_LENGTH = 100;
/** Longest `orderId` / `ledgerId`: the Service Bus SessionId and MessageId limit. */
export const ORDER_ID_MAX_LENGTH = 128;
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
