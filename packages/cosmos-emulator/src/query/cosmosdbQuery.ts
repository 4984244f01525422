import { Module, createRequire } from 'node:module';

/*
 * `@zeit/cosmosdb-query` is CommonJS with `exports.default`, and its package.json points `types` at a
 * file that does not exist. Loading it through `require` and typing the small surface we use keeps the
 * rest of the emulator free of interop casts.
 */

/** AST node as produced by the library's parser (loosely typed: we only walk a few shapes). */
export type AstNode = { type: string; [key: string]: unknown };

/** Continuation object the library returns and accepts. */
export interface LibraryContinuation {
  token: string;
  [key: string]: unknown;
}

/** A parsed query; `ast` may be edited before the first `exec` (code is generated lazily from it). */
export interface ParsedQuery {
  ast: { type: 'sql'; body: AstNode };
  exec(
    items: unknown[],
    options?: {
      parameters?: { name: string; value: unknown }[];
      maxItemCount?: number;
      continuation?: LibraryContinuation;
    },
  ): { result: unknown[]; continuation: LibraryContinuation | null };
}

interface CosmosDbQueryModule {
  default: (sql: string) => ParsedQuery;
  SyntaxError: new (...args: unknown[]) => Error;
}

const requireHere = createRequire(import.meta.url);
/** Requires what the library requires, as it resolves it. */
export const requireFromLibrary = createRequire(requireHere.resolve('@zeit/cosmosdb-query'));

let library: CosmosDbQueryModule | undefined;
// Loaded on first use: with Babel and Turf it would be most of the emulator's start-up (see `preloadQueryLibrary`).
const loaded = (): CosmosDbQueryModule =>
  (library ??= (deferTurf(), requireHere('@zeit/cosmosdb-query') as CosmosDbQueryModule));

/**
 * Turf (a tenth of a second to load) serves only the spatial functions (ST_DISTANCE, ST_WITHIN, ST_INTERSECTS, …),
 * and the library requires it with its built-in functions. It gets a stand-in: each function the library takes from
 * it calls Turf's own, required with the first call.
 */
function deferTurf(): void {
  const path = requireFromLibrary.resolve('@turf/turf');
  if (requireHere.cache[path] !== undefined) return;
  let turf: Record<string, (...args: unknown[]) => unknown> | undefined;
  const real = () => {
    if (turf === undefined) {
      delete requireHere.cache[path];
      turf = requireFromLibrary('@turf/turf') as Record<string, (...args: unknown[]) => unknown>;
    }
    return turf;
  };
  const standIn = new Module(path);
  standIn.filename = path;
  standIn.loaded = true;
  standIn.exports = new Proxy(
    {},
    {
      get:
        (_, name: string) =>
        (...args: unknown[]) =>
          real()[name]!(...args),
    },
  );
  requireHere.cache[path] = standIn;
}

/** Parses Cosmos SQL. @throws the library's SyntaxError on invalid text. */
export function parseSql(sql: string): ParsedQuery {
  return loaded().default(sql);
}

/** True when `error` is the library's parse error. */
export function isSqlSyntaxError(error: unknown): boolean {
  return error instanceof loaded().SyntaxError;
}

/**
 * The library's heavy dependencies in the order its entry loads them; each is required in a turn of its own, so a
 * request arriving meanwhile waits for one of them at most.
 */
const PRELOAD_STEPS = ['@babel/generator', '@babel/traverse', './transformer', './executor'];

let preloading = false;

/**
 * Loads the library in the background, a step per event-loop turn, so the first query does not wait for it; a
 * query arriving before the end loads the rest at once. Once per process.
 */
export function preloadQueryLibrary(): void {
  if (preloading) return;
  preloading = true;
  const steps = [...PRELOAD_STEPS];
  const next = (): void => {
    const step = steps.shift();
    if (step === undefined) {
      loaded();
      return;
    }
    requireFromLibrary(step);
    setImmediate(next).unref();
  };
  deferTurf();
  setImmediate(next).unref();
}
