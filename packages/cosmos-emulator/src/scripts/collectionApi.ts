import { randomUUID } from 'node:crypto';
import { isCosmosError } from '../errors/cosmosError.js';
import type { CosmosError } from '../errors/cosmosError.js';
import { badRequest, notImplemented } from '../errors/errorFactory.js';
import { runQuery } from '../query/queryEngine.js';
import type { QuerySpec } from '../query/queryEngine.js';
import type { DocumentOperation, PartitionTransaction } from '../store/documentOps.js';
import type { ContainerResource, JsonObject, StoredDocument } from '../store/types.js';
import { fluentQueryApi } from './queryApi.js';
import type { MessageMap } from './messageMap.js';
import { OperationAbort, plain } from './scriptRun.js';
import type { ScriptRun } from './scriptRun.js';

/*
 * `getContext().getCollection()` (alias `__`): document CRUD and queries on the partition the script runs
 * in, through the script's transaction, so everything it writes commits or rolls back together. Each call
 * runs at once but reports through its callback after the calling code returns, as on the service; it
 * returns false (and does nothing) once the execution's budget is spent.
 */

/** What the collection object works on. */
export interface CollectionScope {
  run: ScriptRun;
  txn: PartitionTransaction;
  container: ContainerResource;
  /** Name-based link of the container, `dbs/{db}/colls/{coll}`. */
  altLink: string;
  /** The response, where the execution has one (results of fluent queries without a callback land in its body). */
  response?: MessageMap;
  /** UDFs callable from queries. */
  udf: () => Record<string, (...args: unknown[]) => unknown>;
}

type Callback = (error: unknown, result?: unknown, options?: unknown) => void;

/** Page size of `queryDocuments`/`readDocuments` when the script sends none. */
const DEFAULT_PAGE_SIZE = 100;

/** An error as scripts see it in callbacks: `number` is the status code, `body` the service's JSON. */
function scriptError(error: CosmosError): Error {
  return Object.assign(new Error(error.message), {
    number: error.status,
    substatus: error.substatus,
    body: JSON.stringify({ code: error.code, message: error.message }),
  });
}

function optionsAndCallback(options: unknown, callback: unknown): { options: JsonObject; callback?: Callback } {
  if (typeof options === 'function' && callback === undefined) return { options: {}, callback: options as Callback };
  if (options !== undefined && options !== null && typeof options !== 'object') {
    throw new OperationAbort(
      badRequest(`The "options" parameter must be of type "object". Actual type is: "${typeof options}".`),
    );
  }
  if (callback !== undefined && typeof callback !== 'function') {
    throw new OperationAbort(
      badRequest(`The "callback" parameter must be of type "function". Actual type is: "${typeof callback}".`),
    );
  }
  return { options: (options ?? {}) as JsonObject, ...(callback !== undefined && { callback: callback as Callback }) };
}

function documentBody(body: unknown): JsonObject {
  let parsed: unknown;
  try {
    parsed = typeof body === 'string' ? (JSON.parse(body) as unknown) : plain(body);
  } catch {
    throw badRequest('The document body is a string but not JSON.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw badRequest('The document body must be an object or a string representing a JSON-serialized object.');
  }
  return parsed as JsonObject;
}

/** Builds the collection object for one execution. */
export function collectionApi(scope: CollectionScope): Record<string, unknown> {
  const { run, txn, container, altLink } = scope;
  const collectionLinks = new Set([container._self.replace(/\/$/, ''), altLink]);

  const checkCollection = (link: unknown): void => {
    const normalised = String(link).replace(/^\/|\/$/g, '');
    if (!collectionLinks.has(normalised)) {
      throw new OperationAbort(
        badRequest(`Function is not allowed to operate on resources outside current collection: "${String(link)}".`),
      );
    }
  };
  /** The id of the document a link names (by id or by `_rid`); the id itself when no document has it yet. */
  const documentId = (link: unknown): string => {
    const parts = String(link)
      .replace(/^\/|\/$/g, '')
      .split('/');
    const id = parts.pop();
    if (parts.pop() !== 'docs' || id === undefined)
      throw new OperationAbort(badRequest(`Invalid document link: "${String(link)}".`));
    checkCollection(parts.join('/'));
    if (txn.get(id) !== undefined) return id;
    return txn.documents().find((d) => d.body._rid === id)?.body.id ?? id;
  };

  /** Runs `work` now and reports through `callback` later; without a callback a failure ends the execution. */
  const submit = (callback: Callback | undefined, work: () => { result: unknown; info?: JsonObject }): boolean => {
    if (!run.accept()) return false;
    let outcome: { result?: unknown; info?: JsonObject; error?: CosmosError };
    try {
      outcome = work();
    } catch (error) {
      if (!isCosmosError(error)) throw error;
      outcome = { error };
    }
    run.enqueue(() => {
      if (outcome.error !== undefined && callback === undefined) throw new OperationAbort(outcome.error);
      callback?.(
        outcome.error === undefined ? undefined : scriptError(outcome.error),
        outcome.result,
        outcome.info ?? {},
      );
    });
    return true;
  };
  const apply = (op: DocumentOperation): unknown => {
    const { doc } = txn.apply(op);
    return doc === undefined ? undefined : structuredClone(doc.body);
  };
  const ifMatch = (options: JsonObject): { ifMatch?: string } =>
    typeof options['etag'] === 'string' ? { ifMatch: options['etag'] } : {};

  const feed = (callback: Callback | undefined, options: JsonObject, spec: QuerySpec): boolean =>
    submit(callback, () => {
      const pageSize =
        typeof options['pageSize'] === 'number' && options['pageSize'] > 0 ? options['pageSize'] : DEFAULT_PAGE_SIZE;
      const continuation = typeof options['continuation'] === 'string' ? options['continuation'] : undefined;
      const documents = txn.documents().map((d: StoredDocument) => d.body);
      const page = runQuery(spec, documents, {
        maxItemCount: pageSize,
        continuation,
        prefilter: false,
        udf: scope.udf(),
      });
      return { result: structuredClone(page.items), info: { continuation: page.continuation } };
    });

  const unsupported = (name: string) => (): never => {
    throw new OperationAbort(notImplemented(`${name} in server-side scripts (attachments)`));
  };

  return {
    getSelfLink: () => container._self,
    getAltLink: () => altLink,
    createDocument(link: unknown, body: unknown, options?: unknown, callback?: unknown): boolean {
      checkCollection(link);
      const args = optionsAndCallback(options, callback);
      return submit(args.callback, () => {
        const doc = documentBody(body);
        if (doc['id'] === undefined) {
          if (args.options['disableAutomaticIdGeneration'] === true)
            throw badRequest('The document has no id and automatic id generation is disabled.');
          doc['id'] = randomUUID();
        }
        return { result: apply({ kind: 'create', body: doc }) };
      });
    },
    upsertDocument(link: unknown, body: unknown, options?: unknown, callback?: unknown): boolean {
      checkCollection(link);
      const args = optionsAndCallback(options, callback);
      return submit(args.callback, () => {
        const doc = documentBody(body);
        if (doc['id'] === undefined) doc['id'] = randomUUID();
        return { result: apply({ kind: 'upsert', body: doc, ...ifMatch(args.options) }) };
      });
    },
    readDocument(link: unknown, options?: unknown, callback?: unknown): boolean {
      const args = optionsAndCallback(options, callback);
      const id = documentId(link);
      const ifNoneMatch =
        typeof args.options['ifNoneMatch'] === 'string' ? { ifNoneMatch: args.options['ifNoneMatch'] } : {};
      return submit(args.callback, () => ({ result: apply({ kind: 'read', id, ...ifNoneMatch }) }));
    },
    replaceDocument(link: unknown, body: unknown, options?: unknown, callback?: unknown): boolean {
      const args = optionsAndCallback(options, callback);
      const id = documentId(link);
      return submit(args.callback, () => ({
        result: apply({ kind: 'replace', id, body: documentBody(body), ...ifMatch(args.options) }),
      }));
    },
    deleteDocument(link: unknown, options?: unknown, callback?: unknown): boolean {
      const args = optionsAndCallback(options, callback);
      const id = documentId(link);
      return submit(args.callback, () => {
        apply({ kind: 'delete', id, ...ifMatch(args.options) });
        return { result: undefined };
      });
    },
    readDocuments(link: unknown, options?: unknown, callback?: unknown): boolean {
      checkCollection(link);
      const args = optionsAndCallback(options, callback);
      return feed(args.callback, args.options, { query: 'SELECT * FROM root' });
    },
    queryDocuments(link: unknown, query: unknown, options?: unknown, callback?: unknown): boolean {
      checkCollection(link);
      const args = optionsAndCallback(options, callback);
      const spec = (typeof query === 'string' ? { query } : plain(query)) as QuerySpec;
      if (spec === null || typeof spec.query !== 'string')
        throw new OperationAbort(badRequest('The query must be a string or { query, parameters }.'));
      return feed(args.callback, args.options, spec);
    },
    ...Object.fromEntries(
      [
        'createAttachment',
        'upsertAttachment',
        'readAttachment',
        'readAttachments',
        'queryAttachments',
        'replaceAttachment',
        'deleteAttachment',
      ].map((name) => [name, unsupported(name)]),
    ),
    ...fluentQueryApi({
      txn,
      response: scope.response,
      accept: (callback, work) => submit(callback, () => ({ result: work() })),
    }),
  };
}
