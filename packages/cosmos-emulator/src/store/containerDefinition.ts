import { badRequest } from '../errors/errorFactory.js';
import { epochSeconds, newEtag } from './resources.js';
import type { ContainerResource, DatabaseResource, JsonObject, PartitionKeyDefinition } from './types.js';

/*
 * A container as the service stores it: the request validated (id, partition key paths, TTL, indexing
 * mode) and completed with the defaults the service fills in, so a read returns what Azure would.
 */

/** The path the service always leaves out of the index: every policy that indexes anything gets it. */
const ETAG_EXCLUSION = '/"_etag"/?';

/** A partition key path: `/a`, `/a/b`, `/"quoted name"`; no wildcard, no trailing slash. */
const PATH_SEGMENT = /^(?:[A-Za-z0-9_]+|"(?:[^"\\]|\\.)*")$/;

/** Most paths a hierarchical (MultiHash) partition key may have. */
const MAX_HIERARCHY_LEVELS = 3;

/** A resource id as the service accepts it for databases, containers and metadata resources. */
export function requireId(body: JsonObject): string {
  const id = body['id'];
  if (typeof id !== 'string' || id === '' || /[/\\?#]/.test(id))
    throw badRequest("The input content is invalid because the required property 'id' is missing or invalid.");
  if (id.length > 255) throw badRequest('The id is longer than 255 characters.');
  return id;
}

/** Position of the first character that makes `path` invalid, or -1 when it is a valid partition key path. */
function invalidAt(path: string): number {
  if (!path.startsWith('/')) return 0;
  let position = 1;
  for (const segment of path.slice(1).split('/')) {
    if (!PATH_SEGMENT.test(segment)) return position;
    position += segment.length + 1;
  }
  return -1;
}

/** The partition key definition as stored. @throws 400 naming the path the service would refuse. */
function partitionKeyDefinition(raw: unknown): PartitionKeyDefinition {
  const pk = (raw ?? { paths: ['/_partitionKey'], kind: 'Hash' }) as {
    paths?: unknown;
    kind?: unknown;
    version?: unknown;
  };
  if (
    typeof pk !== 'object' ||
    !Array.isArray(pk.paths) ||
    pk.paths.length === 0 ||
    pk.paths.some((p) => typeof p !== 'string')
  ) {
    throw badRequest('The partition key definition is invalid: paths must be a non-empty array of strings.');
  }
  const paths = pk.paths as string[];
  for (const path of paths) {
    const at = invalidAt(path);
    if (at >= 0) {
      throw badRequest(
        `The partition key component definition path '${path}' could not be accepted, failed near position ${at}. Partition key paths must contain only valid characters and not contain a trailing slash or wildcard character.`,
      );
    }
  }
  const kind = pk.kind ?? (paths.length > 1 ? 'MultiHash' : 'Hash');
  if (kind !== 'Hash' && kind !== 'MultiHash')
    throw badRequest(`The partition key kind '${String(kind)}' is not supported; use Hash or MultiHash.`);
  if (kind === 'Hash' && paths.length > 1)
    throw badRequest(
      'A partition key of kind Hash has exactly one path; use MultiHash for hierarchical partition keys.',
    );
  if (paths.length > MAX_HIERARCHY_LEVELS)
    throw badRequest(`A hierarchical partition key has at most ${MAX_HIERARCHY_LEVELS} paths.`);
  const version = pk.version ?? 2;
  if (version !== 1 && version !== 2)
    throw badRequest(`The partition key version ${String(version)} is not supported; use 1 or 2.`);
  if (kind === 'MultiHash' && version !== 2)
    throw badRequest('Hierarchical partition keys require partition key version 2.');
  return { ...(pk as JsonObject), paths, kind, version };
}

/** The indexing policy as the service returns it: mode lower-cased, paths defaulted, `_etag` excluded. */
function indexingPolicy(raw: unknown): JsonObject {
  if (raw !== undefined && (raw === null || typeof raw !== 'object' || Array.isArray(raw)))
    throw badRequest('The indexing policy must be an object.');
  const policy = { ...((raw ?? {}) as JsonObject) };
  const mode = String(policy['indexingMode'] ?? 'consistent').toLowerCase();
  if (mode !== 'consistent' && mode !== 'lazy' && mode !== 'none')
    throw badRequest(`The indexing mode '${String(policy['indexingMode'])}' is invalid; use consistent or none.`);
  if (mode === 'none') {
    return { ...policy, indexingMode: mode, automatic: false, includedPaths: [], excludedPaths: [] };
  }
  const included = Array.isArray(policy['includedPaths'])
    ? (policy['includedPaths'] as JsonObject[])
    : [{ path: '/*' }];
  const excluded = Array.isArray(policy['excludedPaths']) ? (policy['excludedPaths'] as JsonObject[]) : [];
  const withEtag = excluded.some((p) => p['path'] === ETAG_EXCLUSION)
    ? excluded
    : [...excluded, { path: ETAG_EXCLUSION }];
  return {
    ...policy,
    indexingMode: mode,
    automatic: policy['automatic'] ?? true,
    includedPaths: included,
    excludedPaths: withEtag,
  };
}

function validDefaultTtl(ttl: unknown): void {
  if (
    ttl !== undefined &&
    (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl === 0 || ttl < -1 || ttl > 2147483647)
  ) {
    throw badRequest('The value of defaultTtl must be -1 or a positive 32-bit integer.');
  }
}

function geospatialConfig(raw: unknown): JsonObject {
  const type = (raw as { type?: unknown } | undefined)?.type ?? 'Geography';
  if (type !== 'Geography' && type !== 'Geometry')
    throw badRequest(`The geospatial type '${String(type)}' is invalid; use Geography or Geometry.`);
  return { type };
}

/** Builds the stored container resource from a create or replace body. @throws 400 for an invalid definition. */
export function containerResource(body: JsonObject, id: string, rid: string, db: DatabaseResource): ContainerResource {
  // `null` is not "no TTL" on the wire: the service refuses it like any other invalid value.
  validDefaultTtl(body['defaultTtl'] === null ? 0 : body['defaultTtl']);
  const res: ContainerResource = {
    conflictResolutionPolicy: {
      mode: 'LastWriterWins',
      conflictResolutionPath: '/_ts',
      conflictResolutionProcedure: '',
    },
    ...body,
    id,
    partitionKey: partitionKeyDefinition(body['partitionKey']),
    indexingPolicy: indexingPolicy(body['indexingPolicy']),
    geospatialConfig: geospatialConfig(body['geospatialConfig']),
    _rid: rid,
    _self: `${db._self}colls/${rid}/`,
    _etag: newEtag(),
    _ts: epochSeconds(Date.now()),
    _docs: 'docs/',
    _sprocs: 'sprocs/',
    _triggers: 'triggers/',
    _udfs: 'udfs/',
    _conflicts: 'conflicts/',
  };
  if (res.defaultTtl === undefined) delete res.defaultTtl;
  return res;
}
