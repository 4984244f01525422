import { badRequest, notFound, notImplemented } from '../errors/errorFactory.js';
import type { AccountStore } from '../store/accountStore.js';
import type { DocumentOperation, OperationOutcome } from '../store/documentOps.js';
import { MetadataType } from '../store/metadataStore.js';
import type { MetadataResource } from '../store/metadataStore.js';
import type { JsonObject } from '../store/types.js';
import { messageMap } from './messageMap.js';
import { plain, ScriptRun } from './scriptRun.js';
import type { ScriptLimits } from './scriptRun.js';
import { defineServerContext } from './serverContext.js';
import type { ScriptTarget } from './serverContext.js';

/** Triggers a request names (`x-ms-documentdb-pre-trigger-include`, `…-post-trigger-include`). */
export interface TriggerNames {
  pre: string[];
  post: string[];
}

/** The outcome of a triggered write, with the response body as the post-triggers left it. */
interface TriggeredOutcome extends OperationOutcome {
  body?: unknown;
}

/** The trigger operations (lower-cased) that fire for each document operation, besides `all`. */
const FIRES_ON: Record<DocumentOperation['kind'], string[]> = {
  create: ['create'],
  upsert: ['create', 'replace', 'upsert'],
  replace: ['replace', 'update'],
  delete: ['delete'],
  read: [],
  patch: [],
};

const OPERATION_TYPE: Record<DocumentOperation['kind'], string> = {
  create: 'Create',
  upsert: 'Upsert',
  replace: 'Replace',
  delete: 'Delete',
  read: 'Read',
  patch: 'Patch',
};

function resolve(
  store: AccountStore,
  target: ScriptTarget,
  names: string[],
  type: 'pre' | 'post',
  op: DocumentOperation,
): MetadataResource[] {
  return names.map((name) => {
    const trigger = store.metadata.get(`dbs/${target.db}/colls/${target.coll}`, MetadataType.Triggers, name);
    if (trigger === undefined) throw notFound(`Trigger '${name}'`);
    if (String(trigger['triggerType']).toLowerCase() !== type)
      throw badRequest(
        `Trigger '${name}' is a ${String(trigger['triggerType'])}-trigger and cannot run as a ${type}-trigger.`,
      );
    const operation = String(trigger['triggerOperation']).toLowerCase();
    if (operation !== 'all' && !FIRES_ON[op.kind].includes(operation)) {
      throw badRequest(
        `Trigger '${name}' is for ${String(trigger['triggerOperation'])} operations and cannot run on a ${OPERATION_TYPE[op.kind]} operation.`,
      );
    }
    return trigger;
  });
}

function requestBody(value: unknown): JsonObject {
  const body = plain(value);
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw badRequest('A pre-trigger must leave the request body a JSON object.');
  return body as JsonObject;
}

/**
 * Runs a document write with its pre-triggers (which may change the request body and write other
 * documents), the write itself, then its post-triggers (which see the result and may write too), all as one
 * transaction in the partition: a trigger that throws, or a failed write, leaves nothing written.
 * @throws CosmosError 404 for an unknown trigger, 400 for one of the wrong type or operation or one that throws.
 */
export async function executeWithTriggers(
  store: AccountStore,
  target: ScriptTarget,
  op: DocumentOperation,
  names: TriggerNames,
  limits: ScriptLimits,
): Promise<TriggeredOutcome> {
  if (op.kind === 'patch' || op.kind === 'read')
    throw notImplemented(`triggers on ${OPERATION_TYPE[op.kind].toLowerCase()} operations`);
  const pre = resolve(store, target, names.pre, 'pre', op);
  const post = resolve(store, target, names.post, 'post', op);
  const operationType = { value: OPERATION_TYPE[op.kind], writable: false };
  return store.transact(target.db, target.coll, target.pk, (txn) => {
    let current = op;
    for (const trigger of pre) {
      const run = new ScriptRun(limits, false);
      const body =
        'body' in current
          ? { value: structuredClone(current.body), writable: true }
          : { value: undefined, writable: false };
      const request = messageMap({ Body: body, OperationType: operationType });
      defineServerContext(run, txn, { store, target, request });
      const what = `pre-trigger '${trigger.id}'`;
      run.invoke(run.compile(trigger['body'], what), [], what);
      if ('body' in current) current = { ...current, body: requestBody(request.value('Body')) };
    }
    const outcome: TriggeredOutcome = txn.apply(current);
    let responseBody: unknown = outcome.doc === undefined ? undefined : structuredClone(outcome.doc.body);
    for (const trigger of post) {
      const run = new ScriptRun(limits, false);
      const request = messageMap({
        Body: { value: 'body' in current ? structuredClone(current.body) : undefined, writable: false },
        OperationType: operationType,
      });
      const response = messageMap({ Body: { value: responseBody, writable: true } });
      defineServerContext(run, txn, { store, target, request, response });
      const what = `post-trigger '${trigger.id}'`;
      run.invoke(run.compile(trigger['body'], what), [], what);
      responseBody = plain(response.value('Body'));
    }
    return { ...outcome, body: responseBody };
  });
}
