import {
  effectivePartitionKey,
  hasEffectivePartitionKeys,
  rangeIndexOf,
  splitRanges,
} from './effectivePartitionKey.js';
import type { EpkRange } from './effectivePartitionKey.js';
import type { PartitionKeyDefinition, StoredDocument } from './types.js';
import { VersionLog } from './versionLog.js';

/*
 * Modification order of a container, for the change feed (latest-version mode). Every committed write
 * takes the container's next LSN; each partition key range keeps its live documents ordered by LSN, one
 * entry per document at its latest version (a rewrite retires the old entry), so a read from a
 * continuation is a binary search plus the page, never a scan of the container. Deletes and expiry only
 * retire entries: the feed does not report them. A container with a `changeFeedPolicy` also keeps every version
 * and delete (see `versionLog.ts`); its deletes then take an LSN too.
 */

/** Which documents a request sees: one logical partition, one range, and/or an EPK sub-range. */
export interface FeedScope {
  pk?: string;
  range?: number;
  epk?: { min: string; max: string };
}

/** A page of changes: the documents (with their LSN) and the LSN a next read continues after. */
export interface ChangePage {
  changes: StoredDocument[];
  continuation: number;
}

/** Where a change feed read starts. */
export type ChangeStart = { after: number } | { since: number };

/** One range's live documents in LSN order; retired slots are holes until the next compaction. */
class RangeLog {
  lsns: number[] = [];
  docs: (StoredDocument | undefined)[] = [];
  private readonly slots = new Map<string, number>();
  private holes = 0;
  private sorted = true;

  /** The LSN of the live entry for `key`, if any. */
  lsnOf(key: string): number | undefined {
    const slot = this.slots.get(key);
    return slot === undefined ? undefined : this.lsns[slot];
  }

  put(key: string, doc: StoredDocument): void {
    this.retire(key);
    const lsn = doc.lsn ?? 0;
    if (this.lsns.length > 0 && lsn < (this.lsns[this.lsns.length - 1] ?? 0)) this.sorted = false;
    this.slots.set(key, this.lsns.length);
    this.lsns.push(lsn);
    this.docs.push(doc);
  }

  retire(key: string): void {
    const slot = this.slots.get(key);
    if (slot === undefined) return;
    this.slots.delete(key);
    this.docs[slot] = undefined;
    this.holes += 1;
    if (this.holes > 1024 && this.holes * 2 > this.docs.length) this.compact();
  }

  /** First slot whose LSN is greater than `lsn`. */
  firstAfter(lsn: number): number {
    if (!this.sorted) this.compact();
    let low = 0;
    let high = this.lsns.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((this.lsns[mid] ?? 0) <= lsn) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** Drops holes (and restores LSN order after a log replay, which meets documents in any order). */
  private compact(): void {
    const live: [string, StoredDocument][] = [];
    for (const [key, slot] of this.slots) {
      const doc = this.docs[slot];
      if (doc !== undefined) live.push([key, doc]);
    }
    if (!this.sorted) live.sort((a, b) => (a[1].lsn ?? 0) - (b[1].lsn ?? 0));
    this.slots.clear();
    this.lsns = live.map(([, d]) => d.lsn ?? 0);
    this.docs = live.map(([, d]) => d);
    live.forEach(([key], i) => this.slots.set(key, i));
    this.holes = 0;
    this.sorted = true;
  }
}

/** The change feed index of one container, served as `rangeCount` partition key ranges. */
export class ChangeFeedIndex {
  readonly ranges: EpkRange[];
  /** False for hash v1 containers, whose EPKs the emulator does not compute. */
  readonly hasEffectivePartitionKeys: boolean;
  /** Last LSN handed out. */
  lsn = 0;
  /** Every version and delete, for a container whose change feed policy keeps them. */
  versions: VersionLog | undefined;
  /** False while the store replays its log: the LSNs are rebuilt, the versions are not. */
  recording = true;
  private readonly logs: RangeLog[];
  private readonly keys = new Map<string, { epk: string | undefined; range: number }>();

  constructor(
    private readonly definition: PartitionKeyDefinition,
    rangeCount: number,
  ) {
    // Without EPKs (hash v1) documents cannot be placed in ranges the SDK would agree with: one range.
    this.hasEffectivePartitionKeys = hasEffectivePartitionKeys(definition);
    this.ranges = splitRanges(this.hasEffectivePartitionKeys ? rangeCount : 1);
    this.logs = this.ranges.map(() => new RangeLog());
  }

  /** Range index and EPK of a logical partition (cached: hashing once per key). */
  locate(pk: string): { epk: string | undefined; range: number } {
    let found = this.keys.get(pk);
    if (found === undefined) {
      const epk = effectivePartitionKey(pk, this.definition);
      found = { epk, range: epk === undefined ? 0 : rangeIndexOf(this.ranges, epk) };
      this.keys.set(pk, found);
    }
    return found;
  }

  /** True when documents of logical partition `pk` are in `scope` (ignoring `scope.pk`). */
  holds(scope: FeedScope, pk: string): boolean {
    if (scope.range === undefined && scope.epk === undefined) return true;
    const { epk, range } = this.locate(pk);
    if (scope.range !== undefined && range !== scope.range) return false;
    return scope.epk === undefined || (epk !== undefined && epk >= scope.epk.min && epk < scope.epk.max);
  }

  /** Keeps every version for `retentionMinutes` (a container's `changeFeedPolicy`), or stops when undefined. */
  keepVersions(retentionMinutes: number | undefined): void {
    if (retentionMinutes === undefined) this.versions = undefined;
    else if (this.versions === undefined) this.versions = new VersionLog(retentionMinutes * 60_000);
    else this.versions.retain(retentionMinutes);
  }

  /** Records a committed write: the document takes the next LSN unless it has one (log replay). */
  put(doc: StoredDocument): void {
    if (doc.lsn === undefined) doc.lsn = ++this.lsn;
    else this.lsn = Math.max(this.lsn, doc.lsn);
    const key = entryKey(doc.pk, doc.body.id);
    const log = this.logs[this.locate(doc.pk).range];
    const previousLsn = log?.lsnOf(key);
    log?.put(key, doc);
    if (this.versions === undefined || !this.recording) return;
    const operation = previousLsn === undefined ? 'create' : 'replace';
    const crts = Math.floor(doc.writtenAt / 1000);
    this.versions.append(
      {
        lsn: doc.lsn,
        pk: doc.pk,
        operation,
        current: doc.body,
        id: doc.body.id,
        previousLsn: previousLsn ?? 0,
        crts,
        expired: false,
      },
      Date.now(),
    );
  }

  /**
   * Retires a deleted or expired document. With versions kept, a delete takes the next LSN (replayed deletes
   * take theirs again, in the same order) and is recorded; expiry is not logged, so it takes none.
   */
  remove(pk: string, id: string, expired = false): void {
    const key = entryKey(pk, id);
    const log = this.logs[this.locate(pk).range];
    const previousLsn = log?.lsnOf(key);
    log?.retire(key);
    if (this.versions === undefined || previousLsn === undefined || expired) return;
    const lsn = ++this.lsn;
    if (!this.recording) return;
    this.versions.append(
      {
        lsn,
        pk,
        operation: 'delete',
        current: undefined,
        id,
        previousLsn,
        crts: Math.floor(Date.now() / 1000),
        expired: false,
      },
      Date.now(),
    );
  }

  /**
   * Up to `max` changes in `scope` (a range, an EPK range or all; see {@link readPartition} for one
   * key) after a start, in LSN order, skipping documents `live` rejects
   * (expired ones). The continuation is the last LSN returned, or, when the scope is drained, the
   * container's current LSN (no later write can take a smaller one).
   */
  read(scope: FeedScope, start: ChangeStart, max: number, live: (doc: StoredDocument) => boolean): ChangePage {
    const after = 'after' in start ? start.after : 0;
    const since = 'since' in start ? start.since : undefined;
    const changes: StoredDocument[] = [];
    const logs = scope.range !== undefined ? [this.logs[scope.range]] : this.logs;
    if (logs.length > 1) return this.readMerged(scope, after, since, max, live);
    const log = logs[0];
    if (log === undefined) return { changes, continuation: this.lsn };
    for (let slot = log.firstAfter(after); slot < log.docs.length; slot += 1) {
      const doc = log.docs[slot];
      if (doc === undefined || !this.matches(scope, doc, since) || !live(doc)) continue;
      changes.push(doc);
      if (changes.length === max) return { changes, continuation: doc.lsn ?? after };
    }
    return { changes, continuation: Math.max(after, this.lsn) };
  }

  /**
   * {@link read} for one logical partition, from its own documents (`partition`, the live map): a key
   * is small next to its range, so sorting it beats walking the range's log.
   */
  readPartition(
    partition: Iterable<StoredDocument>,
    start: ChangeStart,
    max: number,
    live: (doc: StoredDocument) => boolean,
  ): ChangePage {
    const after = 'after' in start ? start.after : 0;
    const since = 'since' in start ? start.since : undefined;
    const all: StoredDocument[] = [];
    for (const doc of partition)
      if ((doc.lsn ?? 0) > after && (since === undefined || doc.writtenAt >= since) && live(doc)) all.push(doc);
    return this.page(all, after, max);
  }

  /** A read across every range (a client that sends no range): merges the ranges by LSN. */
  private readMerged(
    scope: FeedScope,
    after: number,
    since: number | undefined,
    max: number,
    live: (doc: StoredDocument) => boolean,
  ): ChangePage {
    const all: StoredDocument[] = [];
    for (const log of this.logs) {
      for (let slot = log.firstAfter(after); slot < log.docs.length; slot += 1) {
        const doc = log.docs[slot];
        if (doc !== undefined && this.matches(scope, doc, since) && live(doc)) all.push(doc);
      }
    }
    return this.page(all, after, max);
  }

  private page(all: StoredDocument[], after: number, max: number): ChangePage {
    all.sort((a, b) => (a.lsn ?? 0) - (b.lsn ?? 0));
    if (all.length > max) {
      const changes = all.slice(0, max);
      return { changes, continuation: changes[changes.length - 1]?.lsn ?? after };
    }
    return { changes: all, continuation: Math.max(after, this.lsn) };
  }

  private matches(scope: FeedScope, doc: StoredDocument, since: number | undefined): boolean {
    if (since !== undefined && doc.writtenAt < since) return false;
    return this.holds(scope, doc.pk);
  }
}

function entryKey(pk: string, id: string): string {
  return `${pk}\u0000${id}`;
}
