import { badRequest, notFound } from '../errors/errorFactory.js';
import { header } from '../http/requestContext.js';
import { issueResourceToken, TOKEN_LIFETIME } from '../http/resourceTokens.js';
import { resolveNames } from '../http/resourceIds.js';
import type { AccountStore } from '../store/accountStore.js';
import { MetadataType } from '../store/metadataStore.js';
import { partitionKeyFromHeader } from '../store/partitionKey.js';
import { newMetadataRid } from '../store/resources.js';
import type { JsonObject } from '../store/types.js';
import type { MetadataKind, Owner } from './metadataResources.js';

/** The owner of a database's feeds. @throws 404 */
export function databaseOwner(store: AccountStore, db: string): Owner {
  const res = store.getDatabase(db);
  return { link: `dbs/${db}`, self: res._self, _rid: res._rid };
}

/** The owner of a container's feeds. @throws 404 */
export function containerOwner(store: AccountStore, db: string, coll: string): Owner {
  const res = store.container(db, coll).res;
  return { link: `dbs/${db}/colls/${coll}`, self: res._self, _rid: res._rid };
}

/** The owner of a user's permissions. @throws 404 */
export function userOwner(store: AccountStore, db: string, user: string): Owner {
  store.getDatabase(db);
  const res = store.metadata.get(`dbs/${db}`, MetadataType.Users, user);
  if (res === undefined) throw notFound('User');
  return { link: `dbs/${db}/users/${user}`, self: res._self, _rid: res._rid };
}

const asIs = (body: JsonObject): JsonObject => body;

function oneOf(body: JsonObject, field: string, allowed: string[]): void {
  const value = body[field];
  if (typeof value !== 'string' || !allowed.includes(value.toLowerCase())) {
    throw badRequest(`The ${field} '${String(value)}' is invalid; expected one of ${allowed.join(', ')}.`);
  }
}

/** Users of a database. */
export const USERS: MetadataKind = {
  type: MetadataType.Users,
  listKey: 'Users',
  label: 'User',
  links: { _permissions: 'permissions/' },
  validate: asIs,
  rid: (owner) => newMetadataRid(owner._rid, 'user'),
};

/** Client encryption keys of a database: metadata only (the SDK wraps and unwraps the keys itself). */
export const CLIENT_ENCRYPTION_KEYS: MetadataKind = {
  type: MetadataType.ClientEncryptionKeys,
  listKey: 'ClientEncryptionKeys',
  label: 'Client encryption key',
  validate: (body) => {
    if (typeof body['encryptionAlgorithm'] !== 'string')
      throw badRequest('A client encryption key needs an encryptionAlgorithm.');
    if (typeof body['wrappedDataEncryptionKey'] !== 'string')
      throw badRequest('A client encryption key needs its wrappedDataEncryptionKey (base64).');
    const metadata = body['keyWrapMetadata'] as JsonObject | undefined;
    if (
      metadata === null ||
      typeof metadata !== 'object' ||
      typeof metadata['name'] !== 'string' ||
      typeof metadata['value'] !== 'string'
    ) {
      throw badRequest('A client encryption key needs keyWrapMetadata with a name and a value.');
    }
    return body;
  },
  rid: (owner) => newMetadataRid(owner._rid, 'clientEncryptionKey'),
};

function scriptBody(body: JsonObject): JsonObject {
  if (typeof body['body'] !== 'string')
    throw badRequest('The body of a script must be a string holding a JavaScript function.');
  return body;
}

/** Stored procedures of a container. */
export const STORED_PROCEDURES: MetadataKind = {
  type: MetadataType.StoredProcedures,
  listKey: 'StoredProcedures',
  label: 'Stored procedure',
  validate: scriptBody,
  rid: (owner) => newMetadataRid(owner._rid, 'sproc'),
};

/** Triggers of a container. */
export const TRIGGERS: MetadataKind = {
  type: MetadataType.Triggers,
  listKey: 'Triggers',
  label: 'Trigger',
  validate: (body) => {
    oneOf(body, 'triggerType', ['pre', 'post']);
    oneOf(body, 'triggerOperation', ['all', 'create', 'update', 'delete', 'replace', 'upsert']);
    return scriptBody(body);
  },
  rid: (owner) => newMetadataRid(owner._rid, 'trigger'),
};

/** User-defined functions of a container. */
export const USER_DEFINED_FUNCTIONS: MetadataKind = {
  type: MetadataType.UserDefinedFunctions,
  listKey: 'UserDefinedFunctions',
  label: 'User-defined function',
  validate: scriptBody,
  rid: (owner) => newMetadataRid(owner._rid, 'udf'),
};

/** The canonical partition key a permission is limited to, keyed as the granted container keys documents. */
function grantedPartitionKey(store: AccountStore, resource: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const components = Array.isArray(value) ? value : [value];
  const [, db, , coll] = resolveNames(
    resource.split('/').filter((s) => s.length > 0),
    store,
  );
  try {
    return partitionKeyFromHeader(JSON.stringify(components), store.container(db ?? '', coll ?? '').res.partitionKey);
  } catch {
    return JSON.stringify(components);
  }
}

/**
 * Permissions of a user; each answer carries a resource token (`_token`) for what it grants, valid for
 * `x-ms-documentdb-expiry-seconds` (default one hour, at most five).
 */
export function permissionsKind(store: AccountStore, key: string): MetadataKind {
  return {
    type: MetadataType.Permissions,
    listKey: 'Permissions',
    label: 'Permission',
    validate: (body) => {
      oneOf(body, 'permissionMode', ['read', 'all']);
      if (typeof body['resource'] !== 'string' || body['resource'].replace(/\//g, '') === '')
        throw badRequest('A permission needs the link of the resource it grants.');
      return body;
    },
    rid: (owner) => newMetadataRid(owner._rid, 'permission'),
    present: (res, ctx) => {
      const requested = Number(header(ctx, 'x-ms-documentdb-expiry-seconds') ?? TOKEN_LIFETIME.defaultSeconds);
      const lifetime =
        Number.isFinite(requested) && requested > 0
          ? Math.min(requested, TOKEN_LIFETIME.maxSeconds)
          : TOKEN_LIFETIME.defaultSeconds;
      const resource = String(res['resource']);
      const partitionKey = grantedPartitionKey(store, resource, res['resourcePartitionKey']);
      const mode = String(res['permissionMode']).toLowerCase() === 'all' ? 'All' : 'Read';
      const grant = {
        mode,
        resource,
        expiresAt: Math.floor(Date.now() / 1000) + lifetime,
        ...(partitionKey !== undefined && { partitionKey }),
      } as const;
      return { ...res, _token: issueResourceToken(grant, key) };
    },
  };
}
