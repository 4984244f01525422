import { isCosmosError } from '../errors/cosmosError.js';
import { badRequest, conflict, failedDependency, notFound, serviceUnavailable } from '../errors/errorFactory.js';
import type { CosmosError } from '../errors/cosmosError.js';
import type { CandidateFilter } from '../query/queryEngine.js';
import { AppendLog } from './appendLog.js';
import type { LogRecord } from './appendLog.js';
import { containerResource, requireId } from './containerDefinition.js';
import { PartitionTransaction } from './documentOps.js';
import type { DocumentOperation, OperationOutcome } from './documentOps.js';
import { KeyedMutex } from './keyedMutex.js';
import { MetadataStore } from './metadataStore.js';
import type { MetadataRecord } from './metadataStore.js';
import { documentRid, epochSeconds, newContainerRid, newDatabaseRid, newEtag, ridSequence } from './resources.js';
import { candidateDocuments } from './candidates.js';
import { ChangeFeedIndex } from './changeFeedIndex.js';
import type { ChangePage, ChangeStart, FeedScope } from './changeFeedIndex.js';
import { versionRetentionMinutes } from './versionLog.js';
import { PropertyIndex } from './propertyIndex.js';
import { isExpired } from './ttl.js';
import type { ContainerResource, DatabaseResource, JsonObject, StoredDocument } from './types.js';

/** A container with its documents, grouped by partition, and its secondary index. */
export interface ContainerState {
  res: ContainerResource;
  partitions: Map<string, Map<string, StoredDocument>>;
  sequence: number;
  /** Kept in step with `partitions` by {@link AccountStore} (every put, delete and sweep). */
  index: PropertyIndex;
  /** Modification order and partition key ranges; kept in step like `index`. */
  changes: ChangeFeedIndex;
}

/** Options for {@link AccountStore.open}. */
export interface StoreOptions {
  /** Directory of the durable log; in memory when unset. */
  dataDir?: string;
  /** Partition key ranges each container is served as. @default 1 */
  partitionKeyRanges?: number;
}

interface DatabaseState {
  res: DatabaseResource;
  containers: Map<string, ContainerState>;
}

/** Per-operation result of {@link AccountStore.execute}: an outcome or the error it failed with. */
export type OperationResult = { ok: true; outcome: OperationOutcome } | { ok: false; error: CosmosError };

/**
 * All state of the emulated account. Metadata changes and each partition's writes are serialised with
 * a {@link KeyedMutex}; a write is staged, made durable (when a data dir is set) and only then applied
 * to memory, so readers never see a change that was not acknowledged.
 */
export class AccountStore {
  private readonly databases = new Map<string, DatabaseState>();
  private readonly mutex = new KeyedMutex();
  private lsn = 0;
  /** Offers, users, permissions, keys and scripts; changed only through {@link AccountStore.changeMetadata}. */
  readonly metadata = new MetadataStore();

  /** True while {@link open} replays the log. */
  private restoring = false;

  private constructor(
    private readonly log: AppendLog | undefined,
    private readonly rangeCount: number,
  ) {}

  /** Opens a store, replaying and compacting the log in `dataDir` when given. */
  static async open(options: StoreOptions = {}): Promise<AccountStore> {
    const { dataDir, partitionKeyRanges = 1 } = options;
    if (!Number.isInteger(partitionKeyRanges) || partitionKeyRanges < 1 || partitionKeyRanges > 256) {
      throw new RangeError(`partitionKeyRanges must be an integer from 1 to 256, got ${partitionKeyRanges}.`);
    }
    if (dataDir === undefined) return new AccountStore(undefined, partitionKeyRanges);
    const { log, records } = await AppendLog.open(dataDir);
    const store = new AccountStore(log, partitionKeyRanges);
    store.restoring = true;
    for (const record of records) store.replay(record);
    store.restoring = false;
    for (const db of store.databases.values())
      for (const { changes } of db.containers.values()) changes.recording = true;
    await log.compact(store.snapshot());
    return store;
  }

  /** Session LSN, advanced by every committed write. */
  get currentLsn(): number {
    return this.lsn;
  }

  // ---- databases -------------------------------------------------------------------------------

  listDatabases(): DatabaseResource[] {
    return [...this.databases.values()].map((d) => d.res);
  }

  getDatabase(id: string): DatabaseResource {
    return this.database(id).res;
  }

  async createDatabase(body: JsonObject): Promise<DatabaseResource> {
    const id = requireId(body);
    return this.mutex.run('meta', async () => {
      if (this.databases.has(id)) throw conflict('Database');
      const rid = newDatabaseRid();
      const res: DatabaseResource = {
        ...body,
        id,
        _rid: rid,
        _self: `dbs/${rid}/`,
        _etag: newEtag(),
        _ts: epochSeconds(Date.now()),
        _colls: 'colls/',
        _users: 'users/',
      };
      await this.persist({ k: 'db', res });
      this.replay({ k: 'db', res });
      return res;
    });
  }

  async deleteDatabase(id: string): Promise<void> {
    await this.mutex.run('meta', async () => {
      this.database(id);
      await this.persist({ k: 'dbdel', id });
      this.replay({ k: 'dbdel', id });
    });
  }

  // ---- containers ------------------------------------------------------------------------------

  listContainers(dbId: string): ContainerResource[] {
    return [...this.database(dbId).containers.values()].map((c) => c.res);
  }

  /** The container's state. @throws 404 when the database or container does not exist. */
  container(dbId: string, collId: string): ContainerState {
    const state = this.database(dbId).containers.get(collId);
    if (state === undefined) throw notFound('Container');
    return state;
  }

  /**
   * Creates a container, served as `ranges` partition key ranges when that is more than the store's default (a
   * container provisioned with more throughput has more physical partitions).
   */
  async createContainer(dbId: string, body: JsonObject, ranges = 1): Promise<ContainerResource> {
    const id = requireId(body);
    return this.mutex.run('meta', async () => {
      const db = this.database(dbId);
      if (db.containers.has(id)) throw conflict('Container');
      const rid = newContainerRid(db.res._rid);
      const res = containerResource(body, id, rid, db.res);
      const record: LogRecord = { k: 'coll', db: dbId, res, ...(ranges > this.rangeCount && { ranges }) };
      await this.persist(record);
      this.replay(record);
      return res;
    });
  }

  async replaceContainer(dbId: string, collId: string, body: JsonObject): Promise<ContainerResource> {
    return this.mutex.run('meta', async () => {
      const current = this.container(dbId, collId).res;
      if (requireId(body) !== collId) throw badRequest('The container id cannot be changed.');
      const pk = body['partitionKey'] as { paths?: unknown } | undefined;
      if (pk !== undefined && JSON.stringify(pk.paths) !== JSON.stringify(current.partitionKey.paths)) {
        throw badRequest('The partition key of a container cannot be changed.');
      }
      const res = containerResource(
        { ...body, partitionKey: current.partitionKey },
        collId,
        current._rid,
        this.database(dbId).res,
      );
      await this.persist({ k: 'coll', db: dbId, res });
      this.replay({ k: 'coll', db: dbId, res });
      return res;
    });
  }

  async deleteContainer(dbId: string, collId: string): Promise<void> {
    await this.mutex.run('meta', async () => {
      this.container(dbId, collId);
      await this.persist({ k: 'colldel', db: dbId, id: collId });
      this.replay({ k: 'colldel', db: dbId, id: collId });
    });
  }

  // ---- metadata resources --------------------------------------------------------------------

  /**
   * Runs `decide` under the metadata lock and commits the records it returns (durably, then in memory),
   * so a check such as "this id is free" and the write it allows cannot interleave with another's.
   */
  async changeMetadata<T>(decide: () => { records: MetadataRecord[]; result: T }): Promise<T> {
    return this.mutex.run('meta', async () => {
      const { records, result } = decide();
      for (const record of records) {
        await this.persist(record);
        this.replay(record);
      }
      return result;
    });
  }

  // ---- documents -------------------------------------------------------------------------------

  /**
   * Runs operations on one partition as one transaction. With `atomic`, the first failure rolls the
   * whole set back: that operation reports its error and every other one a 424.
   */
  async execute(dbId: string, collId: string, pk: string, ops: DocumentOperation[]): Promise<OperationResult[]> {
    return this.transact(dbId, collId, pk, (txn) => {
      const results: OperationResult[] = [];
      for (const op of ops) {
        try {
          results.push({ ok: true, outcome: txn.apply(op) });
        } catch (error) {
          if (!isCosmosError(error)) throw error;
          txn.rollback();
          return ops.map((_, i) =>
            i === results.length ? { ok: false as const, error } : { ok: false as const, error: failedDependency() },
          );
        }
      }
      return results;
    });
  }

  /**
   * Runs `work` on one partition as one transaction, serialised with every other write to it: what it
   * stages is made durable and applied when it returns, and nothing is when it throws (or rolls back).
   */
  async transact<T>(dbId: string, collId: string, pk: string, work: (txn: PartitionTransaction) => T): Promise<T> {
    const state = this.container(dbId, collId);
    return this.mutex.run(`${dbId}\u0000${collId}\u0000${pk}`, async () => {
      const live = this.container(dbId, collId);
      if (live !== state) throw notFound('Container');
      const txn = new PartitionTransaction({
        container: state.res,
        documents: state.partitions.get(pk) ?? new Map<string, StoredDocument>(),
        pk,
        now: Date.now(),
        newRid: () => documentRid(state.res._rid, ++state.sequence),
      });
      const result = work(txn);
      if (txn.dirty) {
        const record: LogRecord = {
          k: 'docs',
          db: dbId,
          coll: collId,
          puts: txn.puts,
          dels: txn.dels.map((id) => ({ pk, id })),
        };
        await this.persist(record);
        this.replay(record);
      }
      return result;
    });
  }

  /** Live documents of one partition (`scope.pk`), of one range, or of the whole container. */
  documents(dbId: string, collId: string, scope: FeedScope = {}): StoredDocument[] {
    const state = this.container(dbId, collId);
    const now = Date.now();
    const partitions =
      scope.pk === undefined
        ? [...state.partitions]
        : [[scope.pk, state.partitions.get(scope.pk) ?? new Map()] as const];
    const out: StoredDocument[] = [];
    for (const [pk, partition] of partitions) {
      if (!state.changes.holds(scope, pk)) continue;
      for (const doc of partition.values()) if (!isExpired(doc, state.res, now)) out.push(doc);
    }
    return out;
  }

  /**
   * Live documents a query must see: one partition's when `scope.pk` is set (never any other
   * partition's), else the range's or the container's; narrowed by `filter` when given (see
   * {@link CandidateFilter}).
   */
  queryDocuments(
    dbId: string,
    collId: string,
    scope: FeedScope,
    filter: CandidateFilter | undefined,
  ): StoredDocument[] {
    return candidateDocuments(this.container(dbId, collId), scope, filter, Date.now());
  }

  /** A change feed page of live documents in `scope` (see {@link ChangeFeedIndex.read}). */
  changeFeed(dbId: string, collId: string, scope: FeedScope, start: ChangeStart | 'now', max: number): ChangePage {
    const state = this.container(dbId, collId);
    if (start === 'now') return { changes: [], continuation: state.changes.lsn };
    const now = Date.now();
    const live = (doc: StoredDocument): boolean => !isExpired(doc, state.res, now);
    if (scope.pk !== undefined)
      return state.changes.readPartition(state.partitions.get(scope.pk)?.values() ?? [], start, max, live);
    return state.changes.read(scope, start, max, live);
  }

  /** Drops expired documents from memory (their expiry is derived from durable data, so no log write). */
  sweepExpired(now = Date.now()): number {
    let removed = 0;
    for (const db of this.databases.values()) {
      for (const state of db.containers.values()) {
        if (state.res.defaultTtl === undefined) continue;
        for (const partition of state.partitions.values()) {
          for (const [id, doc] of partition) {
            if (isExpired(doc, state.res, now)) {
              partition.delete(id);
              state.index.remove(doc);
              state.changes.remove(doc.pk, id, true);
              removed += 1;
            }
          }
        }
      }
    }
    return removed;
  }

  /** Waits for pending durable writes and closes the log. */
  async close(): Promise<void> {
    await this.log?.close();
  }

  // ---- internals -------------------------------------------------------------------------------

  private database(id: string): DatabaseState {
    const db = this.databases.get(id);
    if (db === undefined) throw notFound('Database');
    return db;
  }

  private async persist(record: LogRecord): Promise<void> {
    if (this.log === undefined) return;
    try {
      await this.log.append(record);
    } catch (error) {
      throw Object.assign(serviceUnavailable('The durable write failed; the change was not applied.'), {
        cause: error,
      });
    }
  }

  /** Applies a record to memory (used for live commits and for log replay alike). */
  private replay(record: LogRecord): void {
    this.lsn += 1;
    switch (record.k) {
      case 'db':
        this.databases.set(record.res.id, {
          res: record.res,
          containers: this.databases.get(record.res.id)?.containers ?? new Map(),
        });
        return;
      case 'dbdel': {
        const db = this.databases.get(record.id);
        if (db !== undefined)
          this.metadata.dropOffers(new Set([db.res._rid, ...[...db.containers.values()].map((c) => c.res._rid)]));
        this.metadata.dropUnder(`dbs/${record.id}`);
        this.databases.delete(record.id);
        return;
      }
      case 'coll': {
        const db = this.databases.get(record.db);
        const existing = db?.containers.get(record.res.id);
        if (existing) existing.res = record.res;
        else {
          const changes = new ChangeFeedIndex(record.res.partitionKey, record.ranges ?? this.rangeCount);
          db?.containers.set(record.res.id, {
            res: record.res,
            partitions: new Map(),
            sequence: 0,
            index: new PropertyIndex(),
            changes,
          });
        }
        const changes = db?.containers.get(record.res.id)?.changes;
        if (changes === undefined) return;
        if (record.lsn !== undefined) changes.lsn = Math.max(changes.lsn, record.lsn);
        changes.keepVersions(versionRetentionMinutes(record.res));
        changes.recording = !this.restoring;
        return;
      }
      case 'colldel': {
        const containers = this.databases.get(record.db)?.containers;
        const rid = containers?.get(record.id)?.res._rid;
        if (rid !== undefined) this.metadata.dropOffers(new Set([rid]));
        this.metadata.dropUnder(`dbs/${record.db}/colls/${record.id}`);
        containers?.delete(record.id);
        return;
      }
      case 'meta':
        this.metadata.apply(record);
        return;
      case 'docs': {
        const state = this.databases.get(record.db)?.containers.get(record.coll);
        if (state === undefined) return;
        for (const doc of record.puts) {
          let partition = state.partitions.get(doc.pk);
          if (partition === undefined) state.partitions.set(doc.pk, (partition = new Map()));
          const previous = partition.get(doc.body.id);
          if (previous !== undefined) state.index.remove(previous);
          partition.set(doc.body.id, doc);
          state.index.add(doc);
          state.changes.put(doc);
          state.sequence = Math.max(state.sequence, ridSequence(doc.body._rid));
        }
        for (const { pk, id } of record.dels) {
          const partition = state.partitions.get(pk);
          const previous = partition?.get(id);
          if (previous === undefined) continue;
          partition?.delete(id);
          state.index.remove(previous);
          state.changes.remove(pk, id);
        }
      }
    }
  }

  private snapshot(): LogRecord[] {
    const records: LogRecord[] = [];
    for (const [dbId, db] of this.databases) {
      records.push({ k: 'db', res: db.res });
      for (const [collId, state] of db.containers) {
        const ranges = state.changes.ranges.length;
        records.push({
          k: 'coll',
          db: dbId,
          res: state.res,
          lsn: state.changes.lsn,
          ...(ranges > this.rangeCount && { ranges }),
        });
        const puts = [...state.partitions.values()]
          .flatMap((p) => [...p.values()])
          .filter((d) => !isExpired(d, state.res, Date.now()));
        if (puts.length > 0) records.push({ k: 'docs', db: dbId, coll: collId, puts, dels: [] });
      }
    }
    records.push(...this.metadata.snapshot());
    return records;
  }
}
