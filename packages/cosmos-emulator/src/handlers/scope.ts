import { badRequest, partitionKeyRangeGone } from '../errors/errorFactory.js';
import type { RequestContext } from '../http/requestContext.js';
import { header } from '../http/requestContext.js';
import type { ContainerState } from '../store/accountStore.js';
import type { FeedScope } from '../store/changeFeedIndex.js';
import { partitionKeyFromHeader } from '../store/partitionKey.js';

/**
 * The part of a container a feed request (query, read feed, change feed) reads: the logical partition
 * of `x-ms-documentdb-partitionkey`, else the range of `x-ms-documentdb-partitionkeyrangeid` (sent as
 * `id` or `collectionRid,id`), narrowed to `x-ms-start-epk`..`x-ms-end-epk` when both are sent.
 * @throws 410/1002 for a range id the container does not have; 400 for half an EPK range.
 */
export function requestScope(ctx: RequestContext, state: ContainerState): FeedScope {
  const pk = partitionKeyFromHeader(header(ctx, 'x-ms-documentdb-partitionkey'), state.res.partitionKey);
  if (pk !== undefined) return { pk };
  const scope: FeedScope = {};
  const rangeHeader = header(ctx, 'x-ms-documentdb-partitionkeyrangeid');
  if (rangeHeader !== undefined && rangeHeader !== '') {
    const id = rangeHeader.slice(rangeHeader.lastIndexOf(',') + 1).trim();
    const range = state.changes.ranges.findIndex((r) => r.id === id);
    if (range < 0) throw partitionKeyRangeGone(id);
    scope.range = range;
  }
  const min = header(ctx, 'x-ms-start-epk');
  const max = header(ctx, 'x-ms-end-epk');
  if ((min === undefined) !== (max === undefined))
    throw badRequest('x-ms-start-epk and x-ms-end-epk must be sent together.');
  if (min !== undefined && max !== undefined) {
    if (!state.changes.hasEffectivePartitionKeys) {
      throw badRequest(
        'Effective partition key ranges (x-ms-start-epk) are not supported on hash v1 containers by this emulator.',
      );
    }
    scope.epk = { min: min.toUpperCase(), max: max.toUpperCase() };
  }
  return scope;
}
