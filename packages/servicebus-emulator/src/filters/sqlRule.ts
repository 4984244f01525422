import type { ActionStatement, Predicate } from './ast.js';
import { evaluate, test } from './evaluate.js';
import type { MessageView, SqlParameters } from './evaluate.js';
import { SqlSyntaxError, parseSqlAction, parseSqlFilter } from './parse.js';
import { SqlEvaluationError } from './sqlValue.js';
import type { SqlValue } from './sqlValue.js';

/** A compiled SQL filter. */
export interface SqlFilter {
  /**
   * True only when the expression evaluates to TRUE; unknown, false and an evaluation error (division by
   * zero, wrong operand types) do not match.
   */
  matches(view: MessageView): boolean;
  /** Like {@link matches}, but an evaluation error is thrown ({@link SqlEvaluationError}) instead of not matching. */
  evaluate(view: MessageView): boolean;
}

/** What a rule action does to a message's application properties, in statement order. */
export interface PropertyEdit {
  /** Final values of the properties the action set. */
  readonly set: ReadonlyMap<string, SqlValue>;
  /** Properties the action removed (and did not set again). */
  readonly removed: ReadonlySet<string>;
  /** System properties the action set (by canonical name), `null` for one it removed. */
  readonly system: ReadonlyMap<string, SqlValue>;
}

/** The system properties a rule action may set or remove: the message's own string fields. */
const SETTABLE_SYSTEM_PROPERTIES: ReadonlySet<string> = new Set([
  'Label',
  'To',
  'ReplyTo',
  'CorrelationId',
  'ContentType',
  'MessageId',
  'SessionId',
  'ReplyToSessionId',
]);

/** A compiled SQL rule action. */
export interface SqlAction {
  /** Runs the statements against the message; later statements see earlier changes. */
  apply(view: MessageView): PropertyEdit;
}

/** Compiles a filter; throws {@link SqlSyntaxError} with the position of the error. */
export function compileSqlFilter(expression: string, params: SqlParameters = {}): SqlFilter {
  const predicate: Predicate = parseSqlFilter(expression);
  return {
    matches(view) {
      try {
        return test(predicate, view, params) === true;
      } catch (err) {
        if (err instanceof SqlEvaluationError) return false;
        throw err;
      }
    },
    evaluate(view) {
      return test(predicate, view, params) === true;
    },
  };
}

/**
 * Compiles an action; throws {@link SqlSyntaxError}. Application properties and the message's own string system
 * properties ({@link SETTABLE_SYSTEM_PROPERTIES}) can be changed; a `SET` or `REMOVE` of any other `sys.` property
 * (one the broker assigns) is refused here, naming it, rather than accepted and ignored.
 */
export function compileSqlAction(expression: string, params: SqlParameters = {}): SqlAction {
  const statements: ActionStatement[] = parseSqlAction(expression);
  const sys = statements.find((s) => s.prop.scope === 'sys' && !SETTABLE_SYSTEM_PROPERTIES.has(s.prop.name));
  if (sys) {
    throw new SqlSyntaxError(
      `sys.${sys.prop.name} is set by the broker and cannot be changed in a rule action`,
      1,
      1,
      0,
    );
  }
  return {
    apply(view) {
      const user = new Map(view.user);
      const set = new Map<string, SqlValue>();
      const removed = new Set<string>();
      const system = new Map<string, SqlValue>();
      const current: MessageView = { sys: (n) => (system.has(n) ? (system.get(n) ?? undefined) : view.sys(n)), user };
      for (const s of statements) {
        if (s.prop.scope === 'sys') {
          system.set(s.prop.name, s.k === 'set' ? evaluate(s.e, current, params) : null);
        } else if (s.k === 'set') {
          const v = evaluate(s.e, current, params);
          user.set(s.prop.name, v);
          set.set(s.prop.name, v);
          removed.delete(s.prop.name);
        } else {
          user.delete(s.prop.name);
          set.delete(s.prop.name);
          removed.add(s.prop.name);
        }
      }
      return { set, removed, system };
    },
  };
}

export { SqlEvaluationError };
export type { MessageView, SqlParameters, SqlValue };
