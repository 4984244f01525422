import type { JsonObject } from './types.js';

/**
 * The metadata resources that hang off the account, a database, a container or a user, by the path
 * segment that names their feed.
 */
export const MetadataType = {
  Offers: 'offers',
  Users: 'users',
  Permissions: 'permissions',
  ClientEncryptionKeys: 'clientencryptionkeys',
  StoredProcedures: 'sprocs',
  Triggers: 'triggers',
  UserDefinedFunctions: 'udfs',
} as const;

/** One of {@link MetadataType}. */
export type MetadataType = (typeof MetadataType)[keyof typeof MetadataType];

/** A stored metadata resource (system properties included). */
export type MetadataResource = JsonObject & { id: string; _rid: string; _self: string; _etag: string; _ts: number };

/**
 * One durable metadata change: the resource stored under `id` in `parent`'s `type` feed is replaced by
 * `res` (renamed when `res.id` differs, its own children moving with it), or removed when `res` is null.
 * `parent` is the owner's name-based link: `''` for the account, `dbs/{db}`, `dbs/{db}/colls/{coll}`,
 * `dbs/{db}/users/{user}`.
 */
export interface MetadataRecord {
  k: 'meta';
  parent: string;
  type: MetadataType;
  id: string;
  res: MetadataResource | null;
}

/**
 * Metadata resources by owner link, type and id. Mutated only by {@link MetadataStore.apply} (live
 * commits and log replay alike) and by the owner's deletion.
 */
export class MetadataStore {
  private readonly owners = new Map<string, Map<MetadataType, Map<string, MetadataResource>>>();

  /** The `type` feed of `parent` (empty when it has none). */
  list(parent: string, type: MetadataType): MetadataResource[] {
    return [...(this.owners.get(parent)?.get(type)?.values() ?? [])];
  }

  /** One resource, or undefined. */
  get(parent: string, type: MetadataType, id: string): MetadataResource | undefined {
    return this.owners.get(parent)?.get(type)?.get(id);
  }

  /** Applies a record (see {@link MetadataRecord}). */
  apply(record: MetadataRecord): void {
    const { parent, type, id, res } = record;
    let feeds = this.owners.get(parent);
    if (feeds === undefined) this.owners.set(parent, (feeds = new Map()));
    let feed = feeds.get(type);
    if (feed === undefined) feeds.set(type, (feed = new Map()));
    feed.delete(id);
    const oldLink = `${parent === '' ? '' : `${parent}/`}${type}/${id}`;
    if (res === null) {
      this.dropUnder(oldLink);
      return;
    }
    feed.set(res.id, res);
    if (res.id !== id) this.move(oldLink, `${parent === '' ? '' : `${parent}/`}${type}/${res.id}`);
  }

  /** Forgets `link`'s own feeds and those of everything under it (its owner was deleted). */
  dropUnder(link: string): void {
    for (const key of [...this.owners.keys()]) if (key === link || key.startsWith(`${link}/`)) this.owners.delete(key);
  }

  /** Forgets the offers of resources whose `_rid` is in `rids` (their database or container was deleted). */
  dropOffers(rids: Set<string>): void {
    const offers = this.owners.get('')?.get(MetadataType.Offers);
    if (offers === undefined) return;
    for (const [id, offer] of offers) if (rids.has(String(offer['offerResourceId']))) offers.delete(id);
  }

  /** Every resource as a record, for a log snapshot (owners before their children). */
  snapshot(): MetadataRecord[] {
    const records: MetadataRecord[] = [];
    const parents = [...this.owners.keys()].sort((a, b) => a.split('/').length - b.split('/').length);
    for (const parent of parents) {
      for (const [type, feed] of this.owners.get(parent) ?? []) {
        for (const res of feed.values()) records.push({ k: 'meta', parent, type, id: res.id, res });
      }
    }
    return records;
  }

  private move(from: string, to: string): void {
    for (const key of [...this.owners.keys()]) {
      if (key !== from && !key.startsWith(`${from}/`)) continue;
      const feeds = this.owners.get(key);
      this.owners.delete(key);
      if (feeds !== undefined) this.owners.set(`${to}${key.slice(from.length)}`, feeds);
    }
  }
}
