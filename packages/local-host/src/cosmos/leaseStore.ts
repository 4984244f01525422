/**
 * The lease container as Microsoft's change feed processor uses it (see `src/adapters/changeFeedLease.ts` for the
 * documents): one lease per feed range, created when missing; an owner takes a lease by writing its name under the
 * lease's ETag, keeps it by renewing (a write refreshes `timestamp`) and checkpoints into it. A write that meets a
 * changed ETag reads the lease again: another owner means the lease was lost; the same owner means only the ETag
 * moved (its own renewal), and the write is tried again.
 */
import type { Container } from '@azure/cosmos';
import { readLeases, type ChangeFeedLease } from 'ledger-convoy/adapters/changeFeedLease';

/** A lease this host holds was taken by another (or deleted): stop processing it. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
}

/** Lease documents of one processor. */
export class LeaseStore {
  constructor(
    private readonly container: Container,
    /** `leaseIdPrefix(...)` of the processor and monitored container. */
    readonly idPrefix: string,
  ) {}

  /** Creates a lease for each range that has none (a 409 means another host made it). */
  async ensure(ranges: readonly { min: string; max: string }[], nowIso: string): Promise<void> {
    for (const { min, max } of ranges) {
      const lease: ChangeFeedLease = {
        id: `${this.idPrefix}${min}-${max}`,
        LeaseToken: `${min}-${max}`,
        FeedRange: { Range: { min, max, isMinInclusive: true, isMaxInclusive: false } },
        Owner: null,
        ContinuationToken: null,
        timestamp: nowIso,
        version: 1,
        Mode: 'IncrementalFeed',
        properties: {},
      };
      try {
        await this.container.items.create(lease);
      } catch (error) {
        if ((error as { code?: unknown }).code !== 409) throw error;
      }
    }
  }

  /** Every lease of the processor. */
  all(): Promise<ChangeFeedLease[]> {
    return readLeases(this.container, this.idPrefix);
  }

  /** Takes `lease` for `owner` if nobody wrote it since it was read; `undefined` when another host got there first. */
  async acquire(lease: ChangeFeedLease, owner: string, nowIso: string): Promise<ChangeFeedLease | undefined> {
    return this.write({ ...lease, Owner: owner, timestamp: nowIso }, lease._etag);
  }

  /** Refreshes the lease's timestamp; throws {@link LeaseLostError} when another owner has it. */
  renew(lease: ChangeFeedLease, owner: string, nowIso: string): Promise<ChangeFeedLease> {
    return this.update(lease, owner, (current) => ({ ...current, timestamp: nowIso }));
  }

  /** Stores the continuation after a processed batch; throws {@link LeaseLostError} when another owner has it. */
  checkpoint(
    lease: ChangeFeedLease,
    owner: string,
    continuation: string | null,
    nowIso: string,
  ): Promise<ChangeFeedLease> {
    return this.update(lease, owner, (current) => ({ ...current, ContinuationToken: continuation, timestamp: nowIso }));
  }

  /** Gives the lease up (owner cleared) so another host can take it at once; a lost lease is left alone. */
  async release(lease: ChangeFeedLease, owner: string, nowIso: string): Promise<void> {
    await this.update(lease, owner, (current) => ({ ...current, Owner: null, timestamp: nowIso })).catch(
      (error: unknown) => {
        if (!(error instanceof LeaseLostError)) throw error;
      },
    );
  }

  private async update(
    lease: ChangeFeedLease,
    owner: string,
    change: (current: ChangeFeedLease) => ChangeFeedLease,
  ): Promise<ChangeFeedLease> {
    let current = lease;
    for (let round = 0; round < 5; round++) {
      if (current.Owner !== owner)
        throw new LeaseLostError(`lease ${lease.LeaseToken} is now owned by ${current.Owner ?? 'nobody'}`);
      const written = await this.write(change(current), current._etag);
      if (written !== undefined) return written;
      const { resource } = await this.container.item(lease.id, lease.id).read<ChangeFeedLease>();
      if (resource === undefined) throw new LeaseLostError(`lease ${lease.LeaseToken} is gone`);
      current = resource;
    }
    throw new LeaseLostError(`lease ${lease.LeaseToken} kept changing`);
  }

  /** A replace under `etag`; `undefined` on 412 (someone wrote it meanwhile). */
  private async write(next: ChangeFeedLease, etag: string | undefined): Promise<ChangeFeedLease | undefined> {
    const { _etag: _old, ...body } = next;
    try {
      const { resource } = await this.container
        .item(next.id, next.id)
        .replace<ChangeFeedLease>(
          body as ChangeFeedLease,
          etag ? { accessCondition: { type: 'IfMatch', condition: etag } } : {},
        );
      return resource;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === 412) return undefined;
      if (code === 404) throw new LeaseLostError(`lease ${next.LeaseToken} is gone`);
      throw error;
    }
  }
}
