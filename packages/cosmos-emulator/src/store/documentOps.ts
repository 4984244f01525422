import { isCosmosError } from '../errors/cosmosError.js';
import {
  badRequest,
  conflict,
  entityTooLarge,
  notFound,
  partitionKeyMismatch,
  preconditionFailed,
} from '../errors/errorFactory.js';
import { parseSql } from '../query/cosmosdbQuery.js';
import { applyPatch } from './patch.js';
import type { PatchBody } from './patch.js';
import { partitionKeyOfDocument } from './partitionKey.js';
import { epochSeconds, newEtag } from './resources.js';
import { isExpired } from './ttl.js';
import type { ContainerResource, JsonObject, StoredDocument } from './types.js';

/** Largest document the service accepts (2 MiB). */
const MAX_DOCUMENT_BYTES = 2 * 1024 * 1024;

/** A document operation, as a single request or one step of a transactional batch. */
export type DocumentOperation =
  | { kind: 'create'; body: JsonObject; ifNoneMatch?: string }
  | { kind: 'upsert'; body: JsonObject; ifMatch?: string }
  | { kind: 'replace'; id: string; body: JsonObject; ifMatch?: string }
  | { kind: 'delete'; id: string; ifMatch?: string }
  | { kind: 'read'; id: string; ifNoneMatch?: string }
  | { kind: 'patch'; id: string; patch: PatchBody; ifMatch?: string };

/** Outcome of one successful operation. */
export interface OperationOutcome {
  status: number;
  /** The document after the operation (before it, for delete); absent for 304. */
  doc?: StoredDocument;
}

/** The partition a transaction works on. */
export interface PartitionScope {
  container: ContainerResource;
  /** The partition's documents by id (the live map; the transaction never mutates it). */
  documents: Map<string, StoredDocument>;
  pk: string;
  now: number;
  /** Builds a fresh document `_rid`. */
  newRid: () => string;
}

const SYSTEM_PROPERTIES = ['_rid', '_self', '_etag', '_ts', '_attachments'];

/**
 * Copy-on-write view of one partition: operations read through staged changes, and nothing touches
 * the live map until the caller commits `puts`/`dels`. This is what makes a failed batch apply nothing.
 */
export class PartitionTransaction {
  private readonly staged = new Map<string, StoredDocument | null>();

  constructor(readonly scope: PartitionScope) {}

  /** The live (non-expired) document with this id, seen through staged changes. */
  get(id: string): StoredDocument | undefined {
    if (this.staged.has(id)) return this.staged.get(id) ?? undefined;
    const doc = this.scope.documents.get(id);
    if (doc === undefined || isExpired(doc, this.scope.container, this.scope.now)) return undefined;
    return doc;
  }

  /** Staged writes to commit. */
  get puts(): StoredDocument[] {
    return [...this.staged.values()].filter((d): d is StoredDocument => d !== null);
  }

  /** Staged deletes to commit. */
  get dels(): string[] {
    return [...this.staged.entries()].filter(([, d]) => d === null).map(([id]) => id);
  }

  /** True when the transaction changes anything. */
  get dirty(): boolean {
    return this.staged.size > 0;
  }

  /** Forgets every staged change, so committing applies nothing. */
  rollback(): void {
    this.staged.clear();
  }

  /** The partition's live documents as the transaction sees them (staged changes applied), in `_rid` order. */
  documents(): StoredDocument[] {
    const out: StoredDocument[] = [];
    for (const [id, doc] of this.scope.documents) {
      if (!this.staged.has(id) && !isExpired(doc, this.scope.container, this.scope.now)) out.push(doc);
    }
    for (const doc of this.staged.values()) if (doc !== null) out.push(doc);
    return out.sort((a, b) => (a.body._rid < b.body._rid ? -1 : a.body._rid > b.body._rid ? 1 : 0));
  }

  /** Runs one operation against the view; throws a CosmosError on failure. */
  apply(op: DocumentOperation): OperationOutcome {
    switch (op.kind) {
      case 'read':
        return this.read(op.id, op.ifNoneMatch);
      case 'create':
        return this.create(op.body);
      case 'upsert': {
        const id = validId(op.body);
        return this.get(id) === undefined && op.ifMatch === undefined
          ? this.create(op.body)
          : this.replace(id, op.body, op.ifMatch);
      }
      case 'replace':
        return this.replace(op.id, op.body, op.ifMatch);
      case 'delete': {
        const existing = this.existing(op.id, op.ifMatch);
        this.staged.set(op.id, null);
        return { status: 204, doc: existing };
      }
      case 'patch':
        return this.patch(op.id, op.patch, op.ifMatch);
    }
  }

  private read(id: string, ifNoneMatch: string | undefined): OperationOutcome {
    const existing = this.get(id);
    if (existing === undefined) throw notFound();
    if (ifNoneMatch !== undefined && (ifNoneMatch === '*' || ifNoneMatch === existing.body._etag))
      return { status: 304 };
    return { status: 200, doc: existing };
  }

  private create(body: JsonObject): OperationOutcome {
    const id = validId(body);
    if (this.get(id) !== undefined) throw conflict();
    const doc = this.build(body, this.scope.newRid());
    this.staged.set(id, doc);
    return { status: 201, doc };
  }

  private replace(id: string, body: JsonObject, ifMatch: string | undefined): OperationOutcome {
    if (validId(body) !== id) throw badRequest('The id in the document does not match the id in the request.');
    const existing = this.existing(id, ifMatch);
    const doc = this.build(body, existing.body._rid);
    this.staged.set(id, doc);
    return { status: 200, doc };
  }

  private patch(id: string, patch: PatchBody, ifMatch: string | undefined): OperationOutcome {
    const existing = this.existing(id, ifMatch);
    if (patch.condition !== undefined && !conditionHolds(patch.condition, existing.body)) throw preconditionFailed();
    const patched = applyPatch(existing.body, patch.operations, this.scope.container.partitionKey.paths);
    const doc = this.build(patched, existing.body._rid);
    this.staged.set(id, doc);
    return { status: 200, doc };
  }

  private existing(id: string, ifMatch: string | undefined): StoredDocument {
    const existing = this.get(id);
    if (existing === undefined) throw ifMatch !== undefined && ifMatch !== '*' ? preconditionFailed() : notFound();
    if (ifMatch !== undefined && ifMatch !== '*' && ifMatch !== existing.body._etag) throw preconditionFailed();
    return existing;
  }

  private build(input: JsonObject, rid: string): StoredDocument {
    const { container, now, pk } = this.scope;
    if (partitionKeyOfDocument(input, container.partitionKey) !== pk) throw partitionKeyMismatch();
    const clean: JsonObject = {};
    for (const [key, value] of Object.entries(input)) if (!SYSTEM_PROPERTIES.includes(key)) clean[key] = value;
    const collSelf = container._self;
    const body = {
      ...clean,
      id: input['id'] as string,
      _rid: rid,
      _self: `${collSelf}docs/${rid}/`,
      _etag: newEtag(),
      _attachments: 'attachments/',
      _ts: epochSeconds(now),
    };
    if (Buffer.byteLength(JSON.stringify(body)) > MAX_DOCUMENT_BYTES) throw entityTooLarge();
    // A numeric ttl is checked even with TTL off (the service refuses -10 either way); other values only matter,
    // and are only refused, when the container expires items.
    if ('ttl' in body && (container.defaultTtl !== undefined || typeof body['ttl'] === 'number')) validTtl(body['ttl']);
    return { body, pk, writtenAt: now };
  }
}

/**
 * Validates and returns the document id (string, ≤ 255 chars, no `/ \ #`). A `?` is allowed, as on the
 * service: it travels percent-encoded in the path.
 */
function validId(body: JsonObject): string {
  const id = body['id'];
  if (typeof id !== 'string' || id === '') {
    throw badRequest("The input content is invalid because the required properties - 'id; ' - are missing");
  }
  if (id.length > 255 || /[/\\#]/.test(id))
    throw badRequest(`The document id '${id}' contains invalid characters or is too long.`);
  return id;
}

/** An item `ttl`: -1 (never expire) or a positive 32-bit number of seconds. */
function validTtl(ttl: unknown): void {
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl === 0 || ttl < -1 || ttl > 2147483647) {
    throw badRequest(`The value of ttl must be -1 or a positive 32-bit integer, not ${JSON.stringify(ttl)}.`);
  }
}

function conditionHolds(condition: string, doc: JsonObject): boolean {
  try {
    return parseSql(`SELECT * ${condition}`).exec([doc]).result.length > 0;
  } catch (error) {
    if (isCosmosError(error)) throw error;
    throw badRequest(`Patch condition '${condition}' is invalid.`);
  }
}
