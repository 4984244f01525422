/**
 * The permanent trace of an applied entry (`id = applied:<entryId>`), written in the apply's own batch. It is the
 * rule 4 history: once an entry's inbox record has expired, it still tells a late copy of that `entryId` from a
 * reused key, and an `entryId` reused at another sequence is refused at the door (rule 3).
 *
 * Keyed by `entryId`, not by sequence: applied sequences are dense (`1..lastSequence`), so "this `entryId` has no
 * record" already proves that a sequence at or below `lastSequence` was applied from another entry
 * (`SequenceConflict`), while a key lookup also answers "was this `entryId` applied elsewhere?" with one point read.
 *
 * No `ttl`, so it never expires (the container's `defaultTtl` is -1): rule 4 exists precisely for the time after
 * the inbox TTL. About 250 bytes per applied entry, kept out of the order document so that document, rewritten by
 * every step, stays small however long the order lives. It is read only on the rare paths: a sequence at or below
 * `lastSequence` without an inbox record, and before parking.
 */
export interface AppliedEntryDocument {
  id: string;
  docType: 'applied';
  orderId: string;
  entryId: string;
  sequence: number;
  requestHash: string;
  appliedAt: string;
}
