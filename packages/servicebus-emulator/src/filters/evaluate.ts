import { randomUUID } from 'node:crypto';
import type { Expr, Predicate, PropertyRef } from './ast.js';
import { SqlEvaluationError, arithmetic, compareValues } from './sqlValue.js';
import type { SqlValue, Tri } from './sqlValue.js';

/** What a filter sees of a message. */
export interface MessageView {
  /** A system property by canonical name (`Label`, `MessageId`, ...); undefined when the message has none. */
  sys(name: string): SqlValue | undefined;
  /** Application (user) properties. */
  readonly user: ReadonlyMap<string, SqlValue>;
}

/** Named values for `@name` references, keyed with or without the `@`. */
export type SqlParameters = Readonly<Record<string, SqlValue>>;

/** A user property by name; names are case-insensitive in Service Bus SQL, an exact match wins. */
function userProperty(user: ReadonlyMap<string, SqlValue>, name: string): SqlValue | undefined {
  const exact = user.get(name);
  if (exact !== undefined || user.has(name)) return exact;
  const lower = name.toLowerCase();
  for (const [k, v] of user) if (k.toLowerCase() === lower) return v;
  return undefined;
}

function lookup(view: MessageView, p: PropertyRef): SqlValue | undefined {
  return p.scope === 'sys' ? view.sys(p.name) : userProperty(view.user, p.name);
}

/** Evaluates a value expression; an absent property is NULL. */
export function evaluate(e: Expr, view: MessageView, params: SqlParameters): SqlValue {
  switch (e.k) {
    case 'const':
      return e.v;
    case 'param': {
      const v = params[`@${e.name}`] ?? params[e.name];
      if (v === undefined) throw new SqlEvaluationError(`parameter @${e.name} has no value`);
      return v;
    }
    case 'prop':
      return lookup(view, e) ?? null;
    case 'newid':
      return randomUUID();
    case 'neg': {
      const v = evaluate(e.e, view, params);
      if (v === null) return null;
      if (typeof v === 'bigint') return -v;
      if (typeof v === 'number') return -v;
      throw new SqlEvaluationError('unary minus needs a number');
    }
    case 'arith':
      return arithmetic(e.op, evaluate(e.l, view, params), evaluate(e.r, view, params));
  }
}

function not(t: Tri): Tri {
  return t === null ? null : !t;
}

/** SQL LIKE: `%` any run, `_` one character, `escape` makes the next character literal. */
function likeToRegExp(pattern: string, escape: string | undefined): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (escape !== undefined && c === escape && i + 1 < pattern.length) {
      out += (pattern[++i] as string).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    } else if (c === '%') out += '.*';
    else if (c === '_') out += '.';
    else out += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`, 's');
}

/** Evaluates a predicate in three-valued logic: true, false, or null (unknown). */
export function test(p: Predicate, view: MessageView, params: SqlParameters): Tri {
  switch (p.k) {
    case 'and': {
      const l = test(p.l, view, params);
      if (l === false) return false;
      const r = test(p.r, view, params);
      if (r === false) return false;
      return l === null || r === null ? null : true;
    }
    case 'or': {
      const l = test(p.l, view, params);
      if (l === true) return true;
      const r = test(p.r, view, params);
      if (r === true) return true;
      return l === null || r === null ? null : false;
    }
    case 'not':
      return not(test(p.p, view, params));
    case 'cmp': {
      const c = compareValues(evaluate(p.l, view, params), evaluate(p.r, view, params));
      if (c === undefined) return null;
      switch (p.op) {
        case '=':
          return c === 0;
        case '<>':
          return c !== 0;
        case '<':
          return c < 0;
        case '<=':
          return c <= 0;
        case '>':
          return c > 0;
        case '>=':
          return c >= 0;
      }
      return null;
    }
    case 'isnull': {
      const isNull = (lookup(view, p.prop) ?? null) === null;
      return p.not ? !isNull : isNull;
    }
    case 'exists':
      return lookup(view, p.prop) !== undefined;
    case 'like': {
      const v = evaluate(p.e, view, params);
      if (typeof v !== 'string') return null;
      const hit = likeToRegExp(p.pattern, p.escape).test(v);
      return p.not ? !hit : hit;
    }
    case 'in': {
      const v = evaluate(p.e, view, params);
      if (v === null) return null;
      let unknown = false;
      for (const item of p.list) {
        const c = compareValues(v, evaluate(item, view, params));
        if (c === 0) return !p.not;
        if (c === undefined) unknown = true;
      }
      return unknown ? null : p.not;
    }
  }
}
