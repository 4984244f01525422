import type { Reply } from '../http/reply.js';
import { json } from '../http/reply.js';
import type { RequestContext } from '../http/requestContext.js';

/**
 * Query limits the account advertises. The .NET SDK refuses to plan any query without this map
 * (`QueryPartitionProvider`: "queryengineConfiguration cannot be empty") and, having failed, crashed its
 * process from a finalizer; it sends the map to its query engine as JSON, so the answer carries it as a
 * JSON string, as the service does.
 */
const QUERY_ENGINE_CONFIGURATION = {
  maxSqlQueryInputLength: 262144,
  maxJoinsPerSqlQuery: 5,
  maxLogicalAndPerSqlQuery: 500,
  maxLogicalOrPerSqlQuery: 500,
  maxUdfRefPerSqlQuery: 10,
  maxInExpressionItemsCount: 16000,
  queryMaxInMemorySortDocumentCount: 500,
  maxQueryRequestTimeoutFraction: 0.9,
  sqlAllowNonFiniteNumbers: false,
  sqlAllowAggregateFunctions: true,
  sqlAllowSubQuery: true,
  sqlAllowScalarSubQuery: true,
  allowNewKeywords: true,
  sqlAllowLike: true,
  sqlAllowGroupByClause: false,
  maxSpatialQueryCells: 12,
  spatialMaxGeometryPointCount: 256,
  sqlAllowTop: true,
  enableSpatialIndexing: true,
};

/**
 * `GET /`: the database account. The id `localhost` makes the SDK keep using the endpoint it was given
 * (it ignores the location list for that id), so clients behind port mapping still work.
 */
export function readAccount(ctx: RequestContext): Reply {
  const location = { name: 'South Central US', databaseAccountEndpoint: `${ctx.origin}/` };
  return json(200, {
    id: 'localhost',
    _rid: '127.0.0.1',
    _self: '',
    media: '//media/',
    addresses: '//addresses/',
    _dbs: '//dbs/',
    writableLocations: [location],
    readableLocations: [location],
    enableMultipleWriteLocations: false,
    userReplicationPolicy: { asyncReplication: false, minReplicaSetSize: 1, maxReplicasetSize: 4 },
    userConsistencyPolicy: { defaultConsistencyLevel: 'Session' },
    systemReplicationPolicy: { minReplicaSetSize: 1, maxReplicasetSize: 4 },
    readPolicy: { primaryReadCoefficient: 1, secondaryReadCoefficient: 1 },
    queryEngineConfiguration: JSON.stringify(QUERY_ENGINE_CONFIGURATION),
  });
}
