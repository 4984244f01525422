import type { SqlValue } from './sqlValue.js';

/** A property reference: `sys.Label`, `user.color` or plain `color` (user scope). */
export interface PropertyRef {
  readonly k: 'prop';
  readonly scope: 'sys' | 'user';
  /** For `sys`, the canonical system property name; for `user`, the key as written. */
  readonly name: string;
}

/** A value expression. */
export type Expr =
  | { readonly k: 'const'; readonly v: SqlValue }
  | { readonly k: 'param'; readonly name: string }
  | PropertyRef
  | { readonly k: 'newid' }
  | { readonly k: 'neg'; readonly e: Expr }
  | { readonly k: 'arith'; readonly op: '+' | '-' | '*' | '/' | '%'; readonly l: Expr; readonly r: Expr };

/** Comparison operators; `!=` is read as `<>`. */
type CompareOp = '=' | '<>' | '<' | '<=' | '>' | '>=';

/** A filter predicate (three-valued: true, false, unknown). */
export type Predicate =
  | { readonly k: 'and' | 'or'; readonly l: Predicate; readonly r: Predicate }
  | { readonly k: 'not'; readonly p: Predicate }
  | { readonly k: 'cmp'; readonly op: CompareOp; readonly l: Expr; readonly r: Expr }
  | { readonly k: 'isnull'; readonly prop: PropertyRef; readonly not: boolean }
  | { readonly k: 'in'; readonly e: Expr; readonly list: readonly Expr[]; readonly not: boolean }
  | {
      readonly k: 'like';
      readonly e: Expr;
      readonly pattern: string;
      readonly escape: string | undefined;
      readonly not: boolean;
    }
  | { readonly k: 'exists'; readonly prop: PropertyRef };

/** One statement of a rule action. */
export type ActionStatement =
  | { readonly k: 'set'; readonly prop: PropertyRef; readonly e: Expr }
  | { readonly k: 'remove'; readonly prop: PropertyRef };
