import type { DeadLetterReason } from '../deadLetterReasons.js';
import type { Entry } from '../schemas/entry.js';

/**
 * A rejected parked entry's details (rule 11), one document per rejected sequence (`id = rejected:<sequence>`), no
 * TTL: what operators need to correct and resubmit it. Kept out of the order document for the reason parked entries
 * are (see `ParkedEntryDocument`): an order may hold 1,000 rejected entries (a deleted order rejects all it parked),
 * and with their entries, descriptions and ledger ids inlined the order document could pass the 2 MB item limit. The
 * order's `rejected` list keeps only what decisions and the GET view read. Written (upserted) in the batch that rejects
 * the entry, and deleted in the batch that applies its sequence, when its record leaves the list.
 */
export interface RejectedEntryDocument {
  id: string;
  docType: 'rejected';
  orderId: string;
  sequence: number;
  entryId: string;
  requestHash: string;
  reason: DeadLetterReason;
  /** Why it was rejected, in full. */
  description: string;
  rejectedAt: string;
  /** The entry as it was parked, so operators can correct and resubmit it. */
  entry: Entry;
  /** The ledger it came from, which a resubmission carries again (rule 10). */
  correlationId: string | undefined;
}

/** What operators read of a rejected entry beyond the order's `rejected` list. */
export type RejectedDetails = Pick<RejectedEntryDocument, 'entry' | 'description' | 'correlationId'>;

/** The details operators read of a rejected entry, from its document. */
export function rejectedDetails(stored: RejectedEntryDocument | undefined): RejectedDetails | undefined {
  return stored && { entry: stored.entry, description: stored.description, correlationId: stored.correlationId };
}
