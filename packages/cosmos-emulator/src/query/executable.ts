import { requireFromLibrary } from './cosmosdbQuery.js';
import type { LibraryContinuation, ParsedQuery } from './cosmosdbQuery.js';
import { LIKE_FUNCTION, like } from './like.js';
import { ridOrderKey } from './ridOrder.js';
import { SEARCH_BUILTINS } from './searchFunctions.js';

/*
 * `@zeit/cosmosdb-query` turns a parsed query into a JavaScript AST, prints it and evaluates the text
 * with `new Function` on every `exec`. Two things in that path dominate a large container:
 *
 * - the FROM clause builds its row list with `rows.reduce(($, c) => [...$, { c }], [])`, copying the
 *   accumulator once per document (quadratic: about 10 s for 40,000 documents);
 * - a fresh function per call never gets optimised.
 *
 * Here the library's own transformer and printer produce the code once per query, after one rewrite
 * of that accumulator pattern into the equivalent `($.push({ c }), $)` (same rows, same order), and the
 * resulting function is reused with the library's runtime helpers. JOIN flattening (`[...$, ...rows]`)
 * is left as generated.
 */

type JsNode = { type: string; [key: string]: unknown };

type Sort = (collection: unknown[], getRid: (row: unknown) => unknown, ...rest: unknown[]) => unknown[];
/** `orders` as the library passes them: `[path, descending]` pairs. */
const anyDescending = (orders: unknown[]): boolean => orders.some((o) => Array.isArray(o) && o[1] === true);
const byRidOrder = (getRid: (row: unknown) => unknown, orders: unknown[]) => {
  const reverse = anyDescending(orders);
  return (row: unknown): unknown => ridOrderKey(getRid(row), reverse);
};

/** The library's transformer, printer and runtime, loaded on first use (cosmosdbQuery.ts, `preloadQueryLibrary`). */
interface Codegen {
  transform: (ast: unknown) => JsNode;
  generate: (ast: JsNode) => { code: string };
  runtime: { aggregates: unknown; builtins: unknown; helpers: unknown };
}

let codegen: Codegen | undefined;
function library(): Codegen {
  if (codegen !== undefined) return codegen;
  const libraryHelpers = requireFromLibrary('./helpers') as { sort: Sort; paginate: Paginate };
  codegen = {
    transform: (requireFromLibrary('./transformer') as { default: (ast: unknown) => JsNode }).default,
    generate: (requireFromLibrary('@babel/generator') as { default: (ast: JsNode) => { code: string } }).default,
    runtime: {
      aggregates: requireFromLibrary('./aggregate-functions') as unknown,
      // The library's functions plus what it lacks: search functions (`searchFunctions.ts`) and LIKE (`like.ts`).
      builtins: Object.assign(
        Object.create(requireFromLibrary('./builtin-functions') as object) as object,
        SEARCH_BUILTINS,
        { [LIKE_FUNCTION]: like },
      ) as unknown,
      // The library's helpers, with ties broken (and continuations resumed) in the SDK's `_rid` order (`ridOrder.ts`).
      helpers: Object.assign(Object.create(libraryHelpers) as object, {
        sort: ((collection, getRid, indexes, ...orders) =>
          libraryHelpers.sort(collection, byRidOrder(getRid, orders), indexes, ...orders)) as Sort,
        paginate: ((rows, maxItemCount, continuation, getRid, ...orders) =>
          libraryHelpers.paginate(
            rows,
            maxItemCount,
            continuation,
            byRidOrder(getRid as (row: unknown) => unknown, orders),
            ...orders,
          )) as Paginate,
      }) as unknown,
    },
  };
  return codegen;
}

/**
 * What a query hands the library's `paginate` helper as its last step: every result row (sorted,
 * TOP applied) plus how to read `_rid` and ORDER BY values from a row. Paging the same input again
 * yields exactly the page a fresh run would.
 */
export interface PageInput {
  rows: unknown[];
  rest: unknown[];
}

/** A page as the library returns it. */
export type LibraryPage = { result: unknown[]; continuation: LibraryContinuation | null };

/** Options of {@link Executable.run}, as `ParsedQuery.exec` takes them. */
interface RunOptions {
  parameters?: { name: string; value: unknown }[] | undefined;
  maxItemCount?: number | undefined;
  continuation?: LibraryContinuation | undefined;
  /** Receives the paging input when the query pages (aggregates do not). */
  capture?: (input: PageInput) => void;
  /** User-defined functions the query may call as `udf.<id>(...)`. */
  udf?: Record<string, (...args: unknown[]) => unknown> | undefined;
}

/** A compiled query: the library's semantics, generated once. */
export interface Executable {
  run(items: unknown[], options?: RunOptions): LibraryPage;
}

type Paginate = (
  rows: unknown[],
  maxItemCount: number | undefined,
  continuation: LibraryContinuation | undefined,
  ...rest: unknown[]
) => LibraryPage;

/** Pages a captured {@link PageInput} with the library's own helper. */
export function paginate(
  input: PageInput,
  maxItemCount: number | undefined,
  continuation: LibraryContinuation | undefined,
): LibraryPage {
  return (library().runtime.helpers as { paginate: Paginate }).paginate(
    input.rows,
    maxItemCount,
    continuation,
    ...input.rest,
  );
}

type Compiled = (...args: unknown[]) => { result: unknown[]; continuation: LibraryContinuation | null };

const isNode = (value: unknown): value is JsNode =>
  value !== null && typeof value === 'object' && typeof (value as JsNode).type === 'string';

/** `[...$, a, b]` (no further spreads) → `($.push(a, b), $)`; anything else is returned unchanged. */
function pushInsteadOfCopy(node: unknown): unknown {
  if (!isNode(node) || node.type !== 'ArrayExpression') return node;
  const [first, ...rest] = node['elements'] as (JsNode | null)[];
  const spreadsAccumulator =
    first?.type === 'SpreadElement' &&
    isNode(first['argument']) &&
    first['argument'].type === 'Identifier' &&
    first['argument']['name'] === '$';
  if (!spreadsAccumulator || rest.length === 0 || rest.some((e) => e === null || e.type === 'SpreadElement'))
    return node;
  const accumulator = { type: 'Identifier', name: '$' };
  return {
    type: 'SequenceExpression',
    expressions: [
      {
        type: 'CallExpression',
        callee: {
          type: 'MemberExpression',
          object: accumulator,
          property: { type: 'Identifier', name: 'push' },
          computed: false,
        },
        arguments: rest,
      },
      accumulator,
    ],
  };
}

/** True for `x.reduce((<$>, ...) => ..., [])`, the only place the accumulator may be mutated safely. */
function isFreshArrayReduce(node: JsNode): boolean {
  const callee = node['callee'];
  const args = node['arguments'] as unknown[];
  const [reducer, initial] = args;
  return (
    isNode(callee) &&
    callee.type === 'MemberExpression' &&
    isNode(callee['property']) &&
    callee['property']['name'] === 'reduce' &&
    args.length === 2 &&
    isNode(reducer) &&
    reducer.type === 'ArrowFunctionExpression' &&
    isNode((reducer['params'] as unknown[])[0]) &&
    ((reducer['params'] as JsNode[])[0] as JsNode)['name'] === '$' &&
    isNode(initial) &&
    initial.type === 'ArrayExpression' &&
    (initial['elements'] as unknown[]).length === 0
  );
}

/** Rewrites every accumulator copy in the tree (in place) and returns how many it rewrote. */
function linearizeAccumulators(node: unknown): number {
  if (Array.isArray(node)) return node.reduce((n: number, child) => n + linearizeAccumulators(child), 0);
  if (!isNode(node)) return 0;
  let rewritten = 0;
  if (node.type === 'CallExpression' && isFreshArrayReduce(node)) {
    const reducer = (node['arguments'] as JsNode[])[0] as JsNode;
    const body = reducer['body'];
    // The accumulator starts as a fresh `[]` per call, so mutating it cannot leak between rows or runs.
    if (isNode(body) && body.type === 'ConditionalExpression') {
      const replaced = pushInsteadOfCopy(body['consequent']);
      if (replaced !== body['consequent']) {
        body['consequent'] = replaced;
        rewritten += 1;
      }
    } else {
      const replaced = pushInsteadOfCopy(body);
      if (replaced !== body) {
        reducer['body'] = replaced;
        rewritten += 1;
      }
    }
  }
  for (const [key, value] of Object.entries(node)) {
    if (key !== 'type' && value !== null && typeof value === 'object') rewritten += linearizeAccumulators(value);
  }
  return rewritten;
}

/**
 * The JavaScript the query runs as, with accumulator copies rewritten. @throws the library's errors for invalid queries.
 * @internal (exported for the tests that check the generated code)
 */
export function generatedCode(query: ParsedQuery): string {
  const { transform, generate } = library();
  const jsAst = transform(query.ast);
  linearizeAccumulators(jsAst);
  return generate(jsAst).code;
}

/**
 * Generates the query's code once (throwing the library's errors, e.g. `SELECT *` with a JOIN, at the
 * first run as `exec` would) and returns a reusable executable.
 */
export function toExecutable(query: ParsedQuery): Executable {
  let compiled: Compiled | undefined;
  return {
    run(items, options = {}) {
      if (compiled === undefined) {
        // The library's design: generated code is evaluated, as its own executor does.
        compiled = new Function(`"use strict";return (${generatedCode(query)})`)() as Compiled;
      }
      const params: Record<string, unknown> = {};
      for (const { name, value } of options.parameters ?? []) params[name.slice(1)] = value;
      const { capture } = options;
      const { runtime } = library();
      let helpers = runtime.helpers;
      if (capture !== undefined) {
        // Same helpers, with `paginate` reporting its input before doing its usual work.
        const original = (runtime.helpers as { paginate: Paginate }).paginate;
        const paginateAndCapture: Paginate = (rows, maxItemCount, continuation, ...rest) => {
          capture({ rows, rest });
          return original(rows, maxItemCount, continuation, ...rest);
        };
        helpers = Object.assign(Object.create(runtime.helpers as object) as object, { paginate: paginateAndCapture });
      }
      return compiled(
        runtime.aggregates,
        runtime.builtins,
        items,
        helpers,
        options.udf ?? {},
        params,
        options.maxItemCount,
        options.continuation,
        undefined,
      );
    },
  };
}
