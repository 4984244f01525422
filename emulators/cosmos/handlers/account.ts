import type { Reply } from '../http/reply.js';
import { json } from '../http/reply.js';
import type { RequestContext } from '../http/requestContext.js';

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
  });
}
