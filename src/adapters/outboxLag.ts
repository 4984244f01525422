/**
 * The relay's lag (docs/architecture.md, "The outbox relay"): for each lease, the age of the oldest stored event (an
 * applied entry's record) committed after its checkpoint — read as one page of the change feed from the lease's
 * continuation. A page holding no stored event but other changes counts from its oldest change (`_ts`), so a lease
 * stuck behind other documents still shows.
 */
import { ChangeFeedStartFrom, StatusCodes, type Container } from '@azure/cosmos';
import { readLeases, sdkContinuation, type ChangeFeedLease } from './changeFeedLease.js';

/** One lease's figure. */
export interface LeaseLag {
  leaseToken: string;
  owner: string | null;
  /** Age in ms of the oldest change past its checkpoint; 0 when it is caught up. */
  lagMs: number;
}

/** Changes read per lease: enough to find a stored event among the other documents of its entries. */
const PAGE = 100;

/** The lag of every lease of `leaseContainerPrefix` on `monitored`, at `nowMs`. */
export async function relayLag(
  monitored: Container,
  leases: Container,
  leaseContainerPrefix: string,
  nowMs: number,
): Promise<LeaseLag[]> {
  const [{ resource: database }, { resource: container }] = await Promise.all([
    monitored.database.read(),
    monitored.read(),
  ]);
  if (database?._rid === undefined || container?._rid === undefined)
    throw new Error(`cannot read the rids of ${monitored.database.id}/${monitored.id}`);
  const marker = `_${database._rid}_${container._rid}..`;
  const own = (await readLeases(leases, leaseContainerPrefix)).filter((l) => l.id.includes(marker));
  const ranges = own.some((l) => !l.ContinuationToken) ? await monitored.getFeedRanges() : [];
  const lagMs = async (lease: ChangeFeedLease): Promise<number> => {
    const continuation = sdkContinuation(lease, container._rid!);
    const { min, max } = lease.FeedRange.Range;
    const range = ranges.find((r) => r.minInclusive === min && r.maxExclusive === max);
    if (continuation === undefined && range === undefined) return 0; // a range that split or merged: its new leases count
    const start =
      continuation !== undefined
        ? ChangeFeedStartFrom.Continuation(continuation)
        : ChangeFeedStartFrom.Beginning(range!);
    const page = await monitored.items
      .getChangeFeedIterator<{ docType?: string; status?: string; committedAt?: string; _ts?: number }>({
        changeFeedStartFrom: start,
        maxItemCount: PAGE,
      })
      .readNext();
    if (page.statusCode === StatusCodes.NotModified || page.result.length === 0) return 0;
    const committed = page.result
      .filter((d) => d.docType === 'entry' && d.status === 'applied' && typeof d.committedAt === 'string')
      .map((d) => Date.parse(d.committedAt!));
    const oldest =
      committed.length > 0
        ? Math.min(...committed)
        : Math.min(...page.result.map((d) => (d._ts ?? nowMs / 1000) * 1000));
    return Math.max(0, nowMs - oldest);
  };
  return Promise.all(
    own.map(async (lease) => ({ leaseToken: lease.LeaseToken, owner: lease.Owner, lagMs: await lagMs(lease) })),
  );
}
