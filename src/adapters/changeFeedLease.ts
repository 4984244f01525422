/**
 * Change-feed leases as Microsoft's change feed processor keeps them (Microsoft.Azure.Cosmos
 * `DocumentServiceLeaseCoreEpk`, which the Functions Cosmos DB trigger runs): one document per feed range in the
 * lease container (partition key `/id`), `id = <leaseContainerPrefix><account host>_<database rid>_<container rid>..<min>-<max>`,
 * with its owner, the time of its last write (expiry) and the continuation (the feed's ETag, `"<lsn>"`). The
 * in-process host writes exactly these, and the relay's lag timer reads them, so both hosts' leases look alike.
 */
import type { Container } from '@azure/cosmos';

/** The app's lease container (partition key `/id`), in its database; here so readers need not load the trigger's module. */
export const LEASE_CONTAINER = 'leases';
/** The outbox relay trigger's lease id prefix, so other processors can share the lease container. */
export const OUTBOX_RELAY_LEASE_PREFIX = 'outboxRelay';

/** A lease document (the fields this app reads and writes; others are kept as they are). */
export interface ChangeFeedLease {
  id: string;
  /** `"<min>-<max>"` of its feed range. */
  LeaseToken: string;
  /** Its feed range, as effective partition keys (hex strings, `""` to `"FF"` for the whole container). */
  FeedRange: { Range: { min: string; max: string; isMinInclusive?: boolean; isMaxInclusive?: boolean } };
  /** The host that holds it; `null` or empty when released. */
  Owner: string | null;
  /** The change feed's ETag after the last checkpointed batch; `null` before the first. */
  ContinuationToken: string | null;
  /** ISO time of the last write: owner renewals keep it young; older than the expiration interval = expired. */
  timestamp: string;
  /** 1 = feed-range (EPK) based, what the processor writes today. */
  version: number;
  Mode?: string;
  properties: Record<string, string>;
  _etag?: string;
}

/** The lease id prefix of a processor (`leaseContainerPrefix`) on a monitored container (see the module comment). */
export function leaseIdPrefix(
  leaseContainerPrefix: string,
  accountHost: string,
  databaseRid: string,
  containerRid: string,
): string {
  return `${leaseContainerPrefix}${accountHost}_${databaseRid}_${containerRid}..`;
}

/**
 * The `@azure/cosmos` change-feed continuation that resumes one lease's range after its checkpoint: the SDK's
 * composite token (container rid plus one range with the feed's ETag), or `undefined` before the first checkpoint.
 */
export function sdkContinuation(
  lease: Pick<ChangeFeedLease, 'FeedRange' | 'ContinuationToken'>,
  containerRid: string,
): string | undefined {
  if (lease.ContinuationToken === null || lease.ContinuationToken === '') return undefined;
  const { min, max } = lease.FeedRange.Range;
  return JSON.stringify({
    rid: containerRid,
    Continuation: [{ minInclusive: min, maxExclusive: max, continuationToken: lease.ContinuationToken }],
  });
}

/** The feed's ETag for one range in an `@azure/cosmos` continuation (what a lease stores). */
export function leaseContinuationOf(sdkToken: string | undefined): string | null {
  if (sdkToken === undefined) return null;
  const parsed = JSON.parse(sdkToken) as { Continuation?: { continuationToken?: string }[] };
  return parsed.Continuation?.[0]?.continuationToken ?? null;
}

/** The leases of one processor in a lease container (one cross-partition query; the container is small). */
export async function readLeases(leases: Container, idPrefix: string): Promise<ChangeFeedLease[]> {
  const { resources } = await leases.items
    .query<ChangeFeedLease>({
      query: 'SELECT * FROM c WHERE STARTSWITH(c.id, @prefix) AND IS_DEFINED(c.LeaseToken)',
      parameters: [{ name: '@prefix', value: idPrefix }],
    })
    .fetchAll();
  return resources;
}
