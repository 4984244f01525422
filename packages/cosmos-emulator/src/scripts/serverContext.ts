import type { AccountStore } from '../store/accountStore.js';
import type { PartitionTransaction } from '../store/documentOps.js';
import { MetadataType } from '../store/metadataStore.js';
import { collectionApi } from './collectionApi.js';
import type { MessageMap } from './messageMap.js';
import { describe, OperationAbort } from './scriptRun.js';
import type { ScriptLimits, ScriptRun } from './scriptRun.js';
import { badRequest } from '../errors/errorFactory.js';

/** Names a container and the partition a script runs in. */
export interface ScriptTarget {
  db: string;
  coll: string;
  /** Canonical partition key (JSON array). */
  pk: string;
}

/** Status codes scripts compare callback errors with (`ErrorCodes.Conflict`…), as the service exposes them. */
const ERROR_CODES = Object.freeze({
  BadRequest: 400,
  Forbidden: 403,
  NotFound: 404,
  Conflict: 409,
  PreconditionFailed: 412,
  RequestEntityTooLarge: 413,
  RetryWith: 449,
  InternalServerError: 500,
});

/** What a script execution needs besides its run and transaction. */
export interface ServerContextOptions {
  store: AccountStore;
  target: ScriptTarget;
  request: MessageMap;
  /** Absent for pre-triggers, which run before there is a response. */
  response?: MessageMap;
}

/** Options of an execution the handlers start. */
export interface ExecutionOptions {
  limits: ScriptLimits;
  /** Collect `console.log` output (`x-ms-documentdb-script-enable-logging`). */
  logging: boolean;
}

/**
 * The container's UDFs compiled into `run`'s context, for queries the script runs; a UDF whose body does
 * not compile fails the query that calls it.
 */
export function udfsIn(
  run: ScriptRun,
  store: AccountStore,
  target: Omit<ScriptTarget, 'pk'>,
): Record<string, (...args: unknown[]) => unknown> {
  const udf: Record<string, (...args: unknown[]) => unknown> = {};
  for (const res of store.metadata.list(`dbs/${target.db}/colls/${target.coll}`, MetadataType.UserDefinedFunctions)) {
    try {
      udf[res.id] = run.compile(res['body'], `user-defined function '${res.id}'`);
    } catch (error) {
      udf[res.id] = () => {
        throw new OperationAbort(
          badRequest(`The user-defined function '${res.id}' cannot be used: ${describe(error)}`),
        );
      };
    }
  }
  return udf;
}

/**
 * Defines the server-side API in `run`'s context: `getContext()` (with `getCollection()`, `getRequest()`,
 * `getResponse()`), `__` (the collection, with `request`/`response`) and `ErrorCodes`.
 */
export function defineServerContext(run: ScriptRun, txn: PartitionTransaction, options: ServerContextOptions): void {
  const { store, target, request, response } = options;
  let udf: Record<string, (...args: unknown[]) => unknown> | undefined;
  const collection = collectionApi({
    run,
    txn,
    container: txn.scope.container,
    altLink: `dbs/${target.db}/colls/${target.coll}`,
    ...(response !== undefined && { response }),
    udf: () => (udf ??= udfsIn(run, store, target)),
  });
  const context: Record<string, unknown> = {
    getCollection: () => collection,
    getRequest: () => request.api,
  };
  if (response !== undefined) context['getResponse'] = () => response.api;
  run.define('getContext', () => context);
  run.define('__', { ...collection, request: request.api, ...(response !== undefined && { response: response.api }) });
  run.define('ErrorCodes', ERROR_CODES);
}
