import { satisfiesEqualities } from '../query/equalityFilter.js';
import type { CandidateFilter } from '../query/queryEngine.js';
import type { ChangeFeedIndex, FeedScope } from './changeFeedIndex.js';
import type { PropertyIndex } from './propertyIndex.js';
import { isExpired } from './ttl.js';
import type { ContainerResource, StoredDocument } from './types.js';

/** The parts of a container's state candidate selection reads. */
export interface CandidateScope {
  res: ContainerResource;
  partitions: Map<string, Map<string, StoredDocument>>;
  index: PropertyIndex;
  changes: ChangeFeedIndex;
}

function* allDocuments(scope: CandidateScope, feed: FeedScope): Iterable<StoredDocument> {
  for (const [pk, partition] of scope.partitions) if (scope.changes.holds(feed, pk)) yield* partition.values();
}

/**
 * The live documents a query over one partition (`feed.pk`), one range or the whole container must
 * see, narrowed by `filter`. A partition is scanned directly (it is small); a cross-partition query
 * starts from the index entries of its most selective equality, so it touches only documents that can
 * match. Either way every document returned passes the whole filter, is in the range (when one is
 * named) and is not expired at `now`.
 */
export function candidateDocuments(
  scope: CandidateScope,
  feed: FeedScope,
  filter: CandidateFilter | undefined,
  now: number,
): StoredDocument[] {
  const { pk } = feed;
  const equalities = filter?.equalities ?? [];
  const inRange = (doc: StoredDocument): boolean => pk !== undefined || scope.changes.holds(feed, doc.pk);
  const keep = (doc: StoredDocument): boolean =>
    !isExpired(doc, scope.res, now) && inRange(doc) && satisfiesEqualities(doc.body, equalities);
  let source: Iterable<StoredDocument>[];
  if (pk !== undefined) {
    source = [scope.partitions.get(pk)?.values() ?? []];
  } else {
    source = [allDocuments(scope, feed)];
    let smallest = Infinity;
    for (const { property, values } of equalities) {
      const sets = scope.index.lookup(property, values, () => allDocuments(scope, {}));
      if (sets === undefined) continue;
      const size = sets.reduce((n, s) => n + s.size, 0);
      if (size < smallest) {
        smallest = size;
        source = sets;
      }
    }
  }
  const out: StoredDocument[] = [];
  for (const docs of source) for (const doc of docs) if (keep(doc)) out.push(doc);
  return out;
}
