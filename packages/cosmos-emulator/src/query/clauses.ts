import { badRequest } from '../errors/errorFactory.js';
import { rewriteLike } from './like.js';
import { skipStringOrComment } from './sqlText.js';

/*
 * The query library's grammar stops at `SELECT [TOP] ... FROM ... WHERE ... ORDER BY`. The clauses it lacks —
 * `DISTINCT`, `GROUP BY`, `OFFSET … LIMIT` and the `RANK` of `ORDER BY RANK` — are cut out of the text here at
 * the top level of the query (not inside parentheses, brackets, strings or comments), so the library parses the
 * rest and the pipeline (`pipeline.ts`) applies them. LIKE becomes a function call (`like.ts`).
 */

/** An OFFSET or LIMIT count: a literal or a parameter bound at run time. */
export type Count = { value: number } | { parameter: string };

/** A query's text split into what the library parses and the clauses applied around it. */
export interface Clauses {
  /** The query without DISTINCT, GROUP BY, OFFSET LIMIT and RANK. */
  core: string;
  distinct: boolean;
  /** The text of the GROUP BY expressions. */
  groupBy: string | undefined;
  /** `ORDER BY RANK <score>`: hybrid search ranking. */
  rank: boolean;
  offset: Count | undefined;
  limit: Count | undefined;
}

interface Word {
  text: string;
  upper: string;
  start: number;
  end: number;
}

/** Top-level words of a query (outside strings, comments and brackets), with their offsets. */
function topLevelWords(sql: string): Word[] {
  const words: Word[] = [];
  let depth = 0;
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i] ?? '';
    const past = skipStringOrComment(sql, i);
    if (past !== i) {
      i = past;
    } else if ('([{'.includes(ch)) {
      depth += 1;
      i += 1;
    } else if (')]}'.includes(ch)) {
      depth -= 1;
      i += 1;
    } else if (/[A-Za-z_@0-9]/.test(ch)) {
      const start = i;
      while (i < sql.length && /[A-Za-z_@0-9]/.test(sql[i] ?? '')) i += 1;
      // `c.offset` is a property, not a clause.
      const member = /\.\s*$/.test(sql.slice(0, start));
      if (depth === 0 && !member)
        words.push({ text: sql.slice(start, i), upper: sql.slice(start, i).toUpperCase(), start, end: i });
    } else {
      i += 1;
    }
  }
  return words;
}

function count(word: Word | undefined, clause: string): Count {
  if (word !== undefined && /^\d+$/.test(word.text)) return { value: Number(word.text) };
  if (word !== undefined && /^@\w+$/.test(word.text)) return { parameter: word.text };
  throw badRequest(`Syntax error, ${clause} expects a non-negative integer or a parameter.`);
}

/** Splits the clauses the library lacks off a query. @throws 400 for a malformed OFFSET/LIMIT. */
export function splitClauses(sql: string): Clauses {
  const words = topLevelWords(sql);
  const cuts: [number, number][] = [];
  const clauses: Clauses = {
    core: sql,
    distinct: false,
    groupBy: undefined,
    rank: false,
    offset: undefined,
    limit: undefined,
  };
  const at = (i: number): Word | undefined => words[i];
  const index = (upper: string, next?: string): number =>
    words.findIndex((w, i) => w.upper === upper && (next === undefined || at(i + 1)?.upper === next));
  if (at(0)?.upper === 'SELECT' && at(1)?.upper === 'DISTINCT') {
    clauses.distinct = true;
    const distinct = at(1) as Word;
    cuts.push([distinct.start, distinct.end]);
  }
  const offset = index('OFFSET');
  let end = sql.length;
  if (offset >= 0) {
    const limit = at(offset + 2);
    if (limit?.upper !== 'LIMIT') throw badRequest('Syntax error, OFFSET must be followed by LIMIT.');
    clauses.offset = count(at(offset + 1), 'OFFSET');
    clauses.limit = count(at(offset + 3), 'LIMIT');
    end = (at(offset) as Word).start;
    cuts.push([end, sql.length]);
  }
  const orderBy = index('ORDER', 'BY');
  if (orderBy >= 0 && at(orderBy + 2)?.upper === 'RANK') {
    clauses.rank = true;
    const rank = at(orderBy + 2) as Word;
    cuts.push([rank.start, rank.end]);
  }
  const groupBy = index('GROUP', 'BY');
  if (groupBy >= 0) {
    const start = (at(groupBy) as Word).start;
    const stop = orderBy > groupBy ? (at(orderBy) as Word).start : end;
    clauses.groupBy = sql.slice((at(groupBy + 1) as Word).end, stop).trim();
    if (clauses.groupBy === '') throw badRequest('Syntax error, GROUP BY needs at least one expression.');
    cuts.push([start, stop]);
  }
  cuts.sort((a, b) => b[0] - a[0]);
  let core = sql;
  for (const [from, to] of cuts) core = `${core.slice(0, from)} ${core.slice(to)}`;
  clauses.core = rewriteLike(core);
  return clauses;
}

/** True when a query uses a clause the library lacks. */
export function hasExtraClauses(clauses: Clauses): boolean {
  return clauses.distinct || clauses.groupBy !== undefined || clauses.rank || clauses.offset !== undefined;
}
