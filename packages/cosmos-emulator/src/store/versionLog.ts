import type { JsonObject, StoredDocument } from './types.js';

/*
 * The all-versions-and-deletes change feed of one container: every create, replace and delete, in LSN order,
 * kept for the container's `changeFeedPolicy.retentionDuration` (minutes) and in memory only (a restart starts it
 * afresh, as a newly enabled policy would). Reads follow the 2021-09-15 wire format the SDKs ask for: each change is
 * `{ current?, metadata }`, a delete carrying its id and partition key in `metadata` and no `current`.
 */

/** What happened to a document. */
type VersionOperation = 'create' | 'replace' | 'delete';

/** One change of the feed. */
export interface VersionEntry {
  lsn: number;
  /** Canonical partition key string, for scoping reads. */
  pk: string;
  operation: VersionOperation;
  /** The document after the change; undefined for a delete. */
  current: StoredDocument['body'] | undefined;
  id: string;
  /** The LSN of the version this change replaced or deleted; 0 for a create. */
  previousLsn: number;
  /** Epoch seconds of the change. */
  crts: number;
  /** A delete by TTL expiry rather than by a request. */
  expired: boolean;
}

/** A page of the feed: its changes and the LSN a next read continues after. */
export interface VersionPage {
  entries: VersionEntry[];
  continuation: number;
}

/** The retention of a container's `changeFeedPolicy` in minutes, when it keeps versions at all. */
export function versionRetentionMinutes(res: JsonObject): number | undefined {
  const policy = res['changeFeedPolicy'] as { retentionDuration?: unknown } | undefined;
  const minutes = policy?.retentionDuration;
  return typeof minutes === 'number' && minutes > 0 ? minutes : undefined;
}

export class VersionLog {
  private entries: VersionEntry[] = [];

  constructor(private retentionMs: number) {}

  /** Changes how long changes are kept (a container replace may change the policy). */
  retain(minutes: number): void {
    this.retentionMs = minutes * 60_000;
  }

  append(entry: VersionEntry, now: number): void {
    this.entries.push(entry);
    // Changes older than the retention are gone, as on the service; trimmed in bulk to keep appends cheap.
    const horizon = (now - this.retentionMs) / 1000;
    if ((this.entries[0]?.crts ?? horizon) < horizon && this.entries.length > 64) {
      this.entries = this.entries.filter((e) => e.crts >= horizon);
    }
  }

  /** Up to `max` changes after LSN `after` that `inScope` accepts; drained reads continue after `lastLsn`. */
  read(after: number, max: number, inScope: (entry: VersionEntry) => boolean, lastLsn: number): VersionPage {
    const entries: VersionEntry[] = [];
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((this.entries[mid]?.lsn ?? 0) <= after) low = mid + 1;
      else high = mid;
    }
    for (let i = low; i < this.entries.length; i += 1) {
      const entry = this.entries[i];
      if (entry === undefined || !inScope(entry)) continue;
      entries.push(entry);
      if (entries.length === max) return { entries, continuation: entry.lsn };
    }
    return { entries, continuation: Math.max(after, lastLsn) };
  }
}

/** A change as the 2021-09-15 wire format carries it. */
export function wireChange(entry: VersionEntry, partitionKey: unknown): JsonObject {
  const metadata: JsonObject = {
    operationType: entry.operation,
    lsn: entry.lsn,
    crts: entry.crts,
    previousImageLSN: entry.previousLsn,
    timeToLiveExpired: entry.expired,
  };
  if (entry.current === undefined) return { metadata: { ...metadata, id: entry.id, partitionKey } };
  return { current: { ...entry.current, _lsn: entry.lsn }, metadata };
}
