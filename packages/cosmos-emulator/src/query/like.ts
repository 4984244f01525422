import { badRequest } from '../errors/errorFactory.js';
import { skipStringOrComment } from './sqlText.js';

/*
 * `<value> [NOT] LIKE <pattern> [ESCAPE <char>]`, which the query library's grammar lacks, rewritten in the text
 * into a call of the builtin below before the library parses it. The value is the primary expression before LIKE
 * (a path such as `c.name` or `c["a b"]`, a parameter, or a function call); `%` matches any run of characters,
 * `_` one character, `[...]` one of a set, and the escape character makes the next one literal.
 */

/** The builtin a LIKE becomes. */
export const LIKE_FUNCTION = 'COSMOS_EMULATOR_LIKE';

/** Offset where the primary expression that ends just before `end` starts (a path, parameter or call). */
function operandStart(sql: string, end: number): number {
  let i = end;
  while (i > 0 && /\s/.test(sql[i - 1] ?? '')) i -= 1;
  const stop = i;
  for (;;) {
    const ch = sql[i - 1] ?? '';
    let bracket = '';
    if (ch === ']' || ch === ')') {
      const open = ch === ']' ? '[' : '(';
      let depth = 0;
      do {
        i -= 1;
        if (sql[i] === ch) depth += 1;
        else if (sql[i] === open) depth -= 1;
      } while (i > 0 && depth > 0);
      bracket = open;
    } else if (/[\w@$]/.test(ch)) {
      while (i > 0 && /[\w@$]/.test(sql[i - 1] ?? '')) i -= 1;
    } else break;
    // `a.b`, `a["b"]` and `f(x)` continue leftwards; anything else ends the operand.
    if (sql[i - 1] === '.') i -= 1;
    else if (!(bracket === '[' || (bracket === '(' && /\w/.test(sql[i - 1] ?? '')))) break;
  }
  if (i === stop) throw badRequest('Syntax error, LIKE needs a value before it.');
  return i;
}

/** One literal (`'…'`), parameter or word starting at `from` (after spaces), and where it ends. */
function operandAfter(sql: string, from: number): { text: string; end: number } {
  let i = from;
  while (/\s/.test(sql[i] ?? '')) i += 1;
  const start = i;
  if (sql[i] === "'" || sql[i] === '"') {
    const quote = sql[i];
    i += 1;
    while (i < sql.length && sql[i] !== quote) i += sql[i] === '\\' ? 2 : 1;
    i += 1;
  } else while (i < sql.length && /[\w@]/.test(sql[i] ?? '')) i += 1;
  if (i === start) throw badRequest('Syntax error, LIKE needs a pattern after it.');
  return { text: sql.slice(start, i), end: i };
}

/** Offsets of the word `LIKE` outside strings and comments. */
function likeWords(sql: string): number[] {
  const found: number[] = [];
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i] ?? '';
    const past = skipStringOrComment(sql, i);
    if (past !== i) {
      i = past;
    } else if (/\w/.test(ch)) {
      const start = i;
      while (i < sql.length && /\w/.test(sql[i] ?? '')) i += 1;
      if (sql.slice(start, i).toUpperCase() === 'LIKE' && !/\.\s*$/.test(sql.slice(0, start))) found.push(start);
    } else i += 1;
  }
  return found;
}

/** The query with every LIKE rewritten into a call of {@link LIKE_FUNCTION}. */
export function rewriteLike(sql: string): string {
  let out = sql;
  for (const at of likeWords(sql).reverse()) {
    const before = out.slice(0, at);
    const not = /\bNOT\s+$/i.exec(before);
    const valueEnd = not === null ? at : not.index;
    const start = operandStart(out, valueEnd);
    const pattern = operandAfter(out, at + 4);
    let end = pattern.end;
    let escape = '';
    const rest = /^\s+ESCAPE\b/i.exec(out.slice(end));
    if (rest !== null) {
      const e = operandAfter(out, end + rest[0].length);
      escape = `, ${e.text}`;
      end = e.end;
    }
    const call = `${LIKE_FUNCTION}(${out.slice(start, valueEnd).trim()}, ${pattern.text}${escape})`;
    out = `${out.slice(0, start)}${not === null ? '' : 'NOT '}${call}${out.slice(end)}`;
  }
  return out;
}

const regexes = new Map<string, RegExp>();

/** Whether `value` matches a LIKE `pattern`; undefined unless both are strings. */
export function like(value: unknown, pattern: unknown, escape?: unknown): boolean | undefined {
  if (typeof value !== 'string' || typeof pattern !== 'string') return undefined;
  const key = `${pattern}\u0000${String(escape ?? '')}`;
  let regex = regexes.get(key);
  if (regex === undefined) {
    let source = '';
    for (let i = 0; i < pattern.length; i++) {
      const ch = pattern[i] ?? '';
      if (typeof escape === 'string' && escape !== '' && ch === escape)
        source += (pattern[++i] ?? '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      else if (ch === '%') source += '[\\s\\S]*';
      else if (ch === '_') source += '[\\s\\S]';
      else if (ch === '[') {
        const close = pattern.indexOf(']', i + 1);
        if (close === -1) source += '\\[';
        else {
          source += `[${pattern
            .slice(i + 1, close)
            .replace(/^\^/, '^')
            .replace(/\\/g, '\\\\')}]`;
          i = close;
        }
      } else source += ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    }
    regex = new RegExp(`^${source}$`);
    if (regexes.size > 256) regexes.clear();
    regexes.set(key, regex);
  }
  return regex.test(value);
}
