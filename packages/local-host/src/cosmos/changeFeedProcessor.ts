/**
 * One host's change feed processor for one Cosmos DB trigger, with the semantics of Microsoft's
 * `ChangeFeedProcessor` as the Functions Cosmos DB extension runs it (Microsoft.Azure.Cosmos
 * `ChangeFeedProcessorCore`, `EqualPartitionsBalancingStrategy`, `FeedProcessorCore`; WebJobs
 * `CosmosDBTriggerListener`):
 * - leases, one per feed range: taken when expired (no write for `leaseExpirationInterval`) or unowned, checked
 *   every `leaseAcquireInterval`; a host with fewer than its equal share steals one lease from the busiest host;
 *   owned leases are renewed every `leaseRenewInterval`. A lease that moves leaves its old owner processing until
 *   its next renewal or checkpoint finds it lost: the two overlap briefly.
 * - per owned lease: read the range's feed from the lease's continuation (`startFromBeginning` /
 *   `startFromTime` / now for a lease never checkpointed), up to `maxItemsPerInvocation` documents; nothing new →
 *   wait `feedPollDelay`; else invoke the function, then checkpoint — only after it returned. A failed invocation
 *   runs again under the function's `retry` policy; when the policy has no retry left, the host logs the failure
 *   and checkpoints anyway (the extension does: the batch is skipped), so only an unbounded policy skips nothing.
 * - a failed read or checkpoint (not a lost lease) ends the lease's processing and releases the lease
 *   (`FeedProcessorCore.RunAsync` rethrows it; `PartitionControllerCore.ProcessPartitionAsync` then releases):
 *   the balancer takes it again at an acquire interval — at once if the release went through, once the lease
 *   expired if not — and replays from the last checkpoint. So a batch whose checkpoint fails is replayed once, not
 *   in a loop while Cosmos DB keeps failing.
 * - a crash (or {@link ChangeFeedProcessor.abort}) checkpoints nothing: the next owner replays from the last
 *   checkpoint once the lease expires. {@link ChangeFeedProcessor.close} drains: the running invocation
 *   finishes and is checkpointed, then the leases are released for other hosts.
 */
import {
  ChangeFeedStartFrom,
  StatusCodes,
  type ChangeFeedPullModelIterator,
  type Container,
  type FeedRange,
} from '@azure/cosmos';
import type { RetryOptions } from '@azure/functions';
import type { Logger } from 'pino';
import { leaseContinuationOf, sdkContinuation, type ChangeFeedLease } from 'ledger-convoy/adapters/changeFeedLease';
import { LeaseLostError, type LeaseStore } from './leaseStore.js';
import { retryDelayMs } from './retryPolicy.js';

/** Timing and start options, with the extension's defaults. */
export interface ChangeFeedProcessorTiming {
  /** @default 5000 */
  feedPollDelayMs: number;
  /** @default 13000 */
  leaseAcquireIntervalMs: number;
  /** @default 60000 */
  leaseExpirationIntervalMs: number;
  /** @default 17000 */
  leaseRenewIntervalMs: number;
  /** @default 100 */
  maxItemsPerInvocation: number;
  /** @default false */
  startFromBeginning: boolean;
  /** ISO time; exclusive with `startFromBeginning`. @default undefined */
  startFromTime?: string;
}

/** What {@link ChangeFeedProcessor} needs. */
export interface ChangeFeedProcessorOptions {
  functionName: string;
  /** This host's owner name in leases. */
  hostName: string;
  monitored: Container;
  containerRid: string;
  leases: LeaseStore;
  timing: ChangeFeedProcessorTiming;
  retry: RetryOptions | undefined;
  /** Runs the function on one batch; rejects when it failed. */
  invoke(documents: unknown[]): Promise<void>;
  logger: Logger;
}

interface OwnedLease {
  lease: ChangeFeedLease;
  /** Set when the lease is lost or the processor stops: the loop ends after its current step. */
  stop: AbortController;
  loop: Promise<void>;
}

/** A running processor. */
export class ChangeFeedProcessor {
  private readonly owned = new Map<string, OwnedLease>();
  private readonly stopping = new AbortController();
  private crashed = false;
  private ranges: readonly FeedRange[] = [];
  private timers: NodeJS.Timeout[] = [];
  private balancing: Promise<void> = Promise.resolve();

  constructor(private readonly options: ChangeFeedProcessorOptions) {}

  /** Creates missing leases, takes this host's share at once, then keeps balancing and renewing. */
  async start(): Promise<void> {
    this.ranges = await this.options.monitored.getFeedRanges();
    await this.options.leases.ensure(
      this.ranges.map((r) => ({ min: r.minInclusive, max: r.maxExclusive })),
      now(),
    );
    await this.balance();
    const { leaseAcquireIntervalMs, leaseRenewIntervalMs } = this.options.timing;
    this.timers.push(
      setInterval(() => void (this.balancing = this.balancing.then(() => this.balance())), leaseAcquireIntervalMs),
    );
    this.timers.push(setInterval(() => void this.renewAll(), leaseRenewIntervalMs));
  }

  /** Lease tokens this host is processing. */
  ownedLeases(): string[] {
    return [...this.owned.keys()].sort();
  }

  /** Graceful stop: no new reads; running invocations finish and are checkpointed; the leases are released. */
  async close(): Promise<void> {
    this.stopTimers();
    this.stopping.abort();
    await this.balancing;
    const owned = [...this.owned.values()];
    await Promise.allSettled(owned.map((o) => o.loop));
    await Promise.allSettled(owned.map((o) => this.options.leases.release(o.lease, this.options.hostName, now())));
    this.owned.clear();
  }

  /**
   * A crash: everything stops at once; nothing more is checkpointed or released (the leases expire and the next
   * owner replays from the last checkpoint). An invocation already running is not waited for.
   */
  abort(): void {
    this.crashed = true;
    this.stopTimers();
    this.stopping.abort();
    this.owned.clear();
  }

  private stopTimers(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
  }

  /** One round of the equal-share balancing: take expired leases up to this host's share, else steal one. */
  private async balance(): Promise<void> {
    if (this.stopping.signal.aborted) return;
    const { hostName, timing, leases, logger } = this.options;
    let all: ChangeFeedLease[];
    try {
      all = await leases.all();
    } catch (error) {
      logger.warn(
        { err: error, function: this.options.functionName },
        'reading the leases failed; trying again at the next acquire interval',
      );
      return;
    }
    const nowMs = Date.now();
    const expired = (l: ChangeFeedLease) =>
      !l.Owner || Date.parse(l.timestamp) + timing.leaseExpirationIntervalMs < nowMs;
    const live = all.filter((l) => !expired(l));
    const counts = new Map<string, number>([[hostName, 0]]);
    for (const l of live) counts.set(l.Owner!, (counts.get(l.Owner!) ?? 0) + 1);
    const target = Math.ceil(all.length / counts.size);
    const mine = counts.get(hostName)!;
    if (mine >= target) return;
    let take = all.filter((l) => expired(l) && !this.owned.has(l.LeaseToken)).slice(0, target - mine);
    if (take.length === 0) {
      const [busiest, count] = [...counts].filter(([h]) => h !== hostName).sort((a, b) => b[1] - a[1])[0] ?? [
        undefined,
        0,
      ];
      if (busiest !== undefined && count > target) take = live.filter((l) => l.Owner === busiest).slice(0, 1);
    }
    for (const lease of take) {
      const acquired = await leases.acquire(lease, hostName, now()).catch(() => undefined);
      if (acquired === undefined || this.stopping.signal.aborted) continue;
      logger.info(
        { function: this.options.functionName, lease: acquired.LeaseToken, from: lease.Owner ?? null, owner: hostName },
        'change feed lease acquired',
      );
      this.process(acquired);
    }
  }

  private async renewAll(): Promise<void> {
    for (const [token, owned] of this.owned) {
      if (owned.stop.signal.aborted) continue;
      try {
        owned.lease = await this.options.leases.renew(owned.lease, this.options.hostName, now());
      } catch (error) {
        // The renewer only logs a failed renewal; a lost lease stops the lease's processing.
        if (error instanceof LeaseLostError) await this.giveUp(owned, error, 'renewing the lease');
        else
          this.options.logger.warn(
            { function: this.options.functionName, lease: token, owner: this.options.hostName, err: error },
            'renewing a change feed lease failed',
          );
      }
    }
  }

  private process(lease: ChangeFeedLease): void {
    const stop = new AbortController();
    const owned: OwnedLease = { lease, stop, loop: Promise.resolve() };
    this.owned.set(lease.LeaseToken, owned);
    owned.loop = this.run(owned).catch((error: unknown) =>
      this.options.logger.error({ err: error, lease: lease.LeaseToken }, 'change feed processing stopped'),
    );
  }

  /** The lease's loop: read, invoke, checkpoint; wait `feedPollDelay` when the feed has nothing new. */
  private async run(owned: OwnedLease): Promise<void> {
    const { timing, hostName } = this.options;
    const halted = () => owned.stop.signal.aborted || this.stopping.signal.aborted;
    let iterator: ChangeFeedPullModelIterator<unknown> | undefined;
    while (!halted()) {
      let page;
      try {
        iterator ??= this.iteratorFor(owned.lease);
        page = await iterator.readNext();
      } catch (error) {
        return this.giveUp(owned, error, 'reading the change feed failed');
      }
      if (page.statusCode === StatusCodes.NotModified || page.result.length === 0) {
        await pause(timing.feedPollDelayMs, owned.stop.signal, this.stopping.signal);
        continue;
      }
      const done = await this.invokeWithRetry(page.result, owned);
      if (!done || this.crashed) return;
      try {
        owned.lease = await this.options.leases.checkpoint(
          owned.lease,
          hostName,
          leaseContinuationOf(page.continuationToken),
          now(),
        );
      } catch (error) {
        return this.giveUp(owned, error, 'checkpointing the change feed failed');
      }
    }
  }

  /** Ends the lease's processing after a failed read, checkpoint or renewal; releases it unless it was lost. */
  private async giveUp(owned: OwnedLease, error: unknown, what: string): Promise<void> {
    const { logger, functionName, hostName, leases } = this.options;
    const token = owned.lease.LeaseToken;
    owned.stop.abort();
    if (this.owned.get(token) === owned) this.owned.delete(token);
    if (error instanceof LeaseLostError) {
      logger.info({ function: functionName, lease: token, owner: hostName, err: error }, 'change feed lease lost');
      return;
    }
    logger.warn(
      { err: error, function: functionName, lease: token, owner: hostName },
      `${what}; releasing the lease, to be taken again from its last checkpoint`,
    );
    if (this.crashed) return;
    await leases.release(owned.lease, hostName, now()).catch((releaseError: unknown) => {
      logger.warn(
        { err: releaseError, function: functionName, lease: token, owner: hostName },
        'releasing the change feed lease failed; it is taken again once it expires',
      );
    });
  }

  /** Runs the batch under the retry policy; `false` when the host stopped first (nothing to checkpoint). */
  private async invokeWithRetry(documents: unknown[], owned: OwnedLease): Promise<boolean> {
    const { logger, functionName, retry } = this.options;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.options.invoke(documents);
        return true;
      } catch (error) {
        const delay = retryDelayMs(retry, attempt + 1);
        if (delay === undefined) {
          logger.error(
            { err: error, function: functionName, lease: owned.lease.LeaseToken, documents: documents.length },
            'function failed and has no retry left; its batch is checkpointed, as the Functions host does',
          );
          return true;
        }
        logger.warn(
          { err: error, function: functionName, lease: owned.lease.LeaseToken, retry: attempt + 1, delayMs: delay },
          'function failed; retrying its batch',
        );
        // A stop between retries ends the loop without a checkpoint: the next owner replays the batch.
        if (!(await pause(delay, this.stopping.signal)) || this.crashed) return false;
      }
    }
  }

  private iteratorFor(lease: ChangeFeedLease): ChangeFeedPullModelIterator<unknown> {
    const { timing, monitored, containerRid } = this.options;
    const continuation = sdkContinuation(lease, containerRid);
    const range = this.ranges.find(
      (r) => r.minInclusive === lease.FeedRange.Range.min && r.maxExclusive === lease.FeedRange.Range.max,
    );
    if (continuation === undefined && range === undefined)
      throw new Error(`lease ${lease.LeaseToken} matches no feed range of ${monitored.id}`);
    const changeFeedStartFrom =
      continuation !== undefined
        ? ChangeFeedStartFrom.Continuation(continuation)
        : timing.startFromBeginning
          ? ChangeFeedStartFrom.Beginning(range!)
          : timing.startFromTime !== undefined
            ? ChangeFeedStartFrom.Time(new Date(timing.startFromTime), range!)
            : ChangeFeedStartFrom.Now(range!);
    return monitored.items.getChangeFeedIterator({ changeFeedStartFrom, maxItemCount: timing.maxItemsPerInvocation });
  }
}

function now(): string {
  return new Date().toISOString();
}

/** Waits `ms`; resolves `false` early when any signal aborts. */
function pause(ms: number, ...signals: AbortSignal[]): Promise<boolean> {
  return new Promise((resolve) => {
    if (signals.some((s) => s.aborted)) return resolve(false);
    const done = (value: boolean) => {
      clearTimeout(timer);
      for (const s of signals) s.removeEventListener('abort', onAbort);
      resolve(value);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    for (const s of signals) s.addEventListener('abort', onAbort, { once: true });
  });
}
