import peggy from 'peggy';
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

// Generated once at load from the grammar text; no file is read.
const parser = peggy.generate(sqlGrammar, { allowedStartRules: ['Filter', 'Actions'] });

function run(text: string, startRule: 'Filter' | 'Actions'): unknown {
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
