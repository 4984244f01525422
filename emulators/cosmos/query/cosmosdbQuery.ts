import { createRequire } from 'node:module';

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

const library = createRequire(import.meta.url)('@zeit/cosmosdb-query') as CosmosDbQueryModule;

/** Parses Cosmos SQL. @throws the library's SyntaxError on invalid text. */
export function parseSql(sql: string): ParsedQuery {
  return library.default(sql);
}

/** True when `error` is the library's parse error. */
export function isSqlSyntaxError(error: unknown): boolean {
  return error instanceof library.SyntaxError;
}
