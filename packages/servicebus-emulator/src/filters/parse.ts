import { createRequire } from 'node:module';
import type peggy from 'peggy';
import type { ActionStatement, Predicate } from './ast.js';
import { sqlGrammar } from './grammar.js';

/** A SQL filter or action that does not parse; carries where the error is. */
export class SqlSyntaxError extends Error {
  override readonly name = 'SqlSyntaxError';
  constructor(
    readonly reason: string,
    /** 1-based line and column of the error in the expression. */
    readonly line: number,
    readonly column: number,
    /** 0-based character offset. */
    readonly offset: number,
  ) {
    super(`${reason} at line ${line}, column ${column}`);
  }
}

// Generated from the grammar text on first use (a quarter of the emulator's start-up otherwise); no file is read.
// Peggy itself is loaded then too: most namespaces have no SQL rule.
let generated: peggy.Parser | undefined;

function run(text: string, startRule: 'Filter' | 'Actions'): unknown {
  generated ??= (createRequire(import.meta.url)('peggy') as typeof peggy).generate(sqlGrammar, {
    allowedStartRules: ['Filter', 'Actions'],
  });
  const parser = generated;
  try {
    return parser.parse(text, { startRule });
  } catch (err) {
    if (err instanceof parser.SyntaxError) {
      const { line, column, offset } = err.location.start;
      throw new SqlSyntaxError(err.message.replace(/\.$/, ''), line, column, offset);
    }
    throw err;
  }
}

/** Parses a SQL filter expression (`color = 'red' AND quantity > 10`). Throws {@link SqlSyntaxError}. */
export function parseSqlFilter(text: string): Predicate {
  return run(text, 'Filter') as Predicate;
}

/** Parses a SQL rule action (`SET a = 1; REMOVE b`). Throws {@link SqlSyntaxError}. */
export function parseSqlAction(text: string): ActionStatement[] {
  return run(text, 'Actions') as ActionStatement[];
}
