import { notFound } from '../errors/errorFactory.js';
import type { AccountStore } from '../store/accountStore.js';
import { MetadataType } from '../store/metadataStore.js';
import { messageMap } from './messageMap.js';
import { ScriptRun } from './scriptRun.js';
import { defineServerContext } from './serverContext.js';
import type { ExecutionOptions, ScriptTarget } from './serverContext.js';

/** What a stored procedure returned. */
export interface StoredProcedureResult {
  /** The response body it set (it starts as an empty string, as on the service). */
  body: unknown;
  /** Its `console.log` lines, when logging was asked for. */
  logs: string[];
}

/**
 * Executes stored procedure `id` in the partition `target.pk` as one transaction: the documents it writes
 * are committed when it completes and none are when it throws, times out or leaves a failed operation
 * unhandled — the service's guarantee for a stored procedure within its partition key.
 * @throws CosmosError 404 for an unknown procedure, 400 for what the script threw, 408 past the time budget.
 */
export async function executeStoredProcedure(
  store: AccountStore,
  target: ScriptTarget,
  id: string,
  args: unknown[],
  options: ExecutionOptions,
): Promise<StoredProcedureResult> {
  const sproc = store.metadata.get(`dbs/${target.db}/colls/${target.coll}`, MetadataType.StoredProcedures, id);
  if (sproc === undefined) throw notFound('Stored procedure');
  return store.transact(target.db, target.coll, target.pk, (txn) => {
    const run = new ScriptRun(options.limits, options.logging);
    const request = messageMap({ Body: { value: args, writable: false } });
    const response = messageMap({ Body: { value: '', writable: true } });
    defineServerContext(run, txn, { store, target, request, response });
    const what = `stored procedure '${id}'`;
    run.invoke(run.compile(sproc['body'], what), args, what);
    return { body: response.value('Body'), logs: run.logs };
  });
}
