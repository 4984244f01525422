import type { CosmosError } from '../errors/cosmosError.js';
import { badRequest } from '../errors/errorFactory.js';
import { compareValues } from './ordering.js';
import { ridOrderKey } from './ridOrder.js';

/*
 * Pages of a pipeline query's rows. A continuation names where the next page starts: a count of rows already
 * sent, or — for a range's ORDER BY rows, which the SDK resumes with a filter on the last ORDER BY values
 * (so the rows before the token are no longer there to count) — the last row's ORDER BY values and `_rid`.
 */

/** A page of rows and, when more follow, the continuation. */
interface RowsPage {
  items: unknown[];
  continuation?: string;
}

type Position = { items: unknown[]; rid: unknown };
type Token = { skip: number } | { after: Position };

/** The 400 the service answers for a continuation token it cannot read. */
export function invalidContinuation(detail: string): CosmosError {
  return badRequest(`Invalid Continuation Token: ${detail}`);
}

function decode(token: string): Token {
  let parsed: unknown;
  try {
    parsed = JSON.parse(token);
  } catch {
    throw invalidContinuation('the token is not JSON.');
  }
  const inner = (parsed as { pipeline?: Token } | null)?.pipeline;
  if (inner !== undefined && 'skip' in inner && Number.isInteger(inner.skip) && inner.skip >= 0) return inner;
  if (inner !== undefined && 'after' in inner && Array.isArray(inner.after?.items)) return inner;
  throw invalidContinuation('the token does not belong to this query.');
}

const positionOf = (row: unknown): Position => {
  const r = row as { orderByItems?: { item?: unknown }[]; _rid?: unknown };
  return { items: (r.orderByItems ?? []).map((i) => i.item), rid: r._rid };
};

/** Compares two positions under ORDER BY directions (1 ascending, -1 descending), `_rid` last. */
function comparePositions(a: Position, b: Position, directions: number[]): number {
  for (let i = 0; i < directions.length; i++) {
    const r = compareValues(a.items[i], b.items[i]);
    if (r !== 0) return r * (directions[i] ?? 1);
  }
  const reverse = directions.includes(-1);
  return compareValues(ridOrderKey(a.rid, reverse), ridOrderKey(b.rid, reverse));
}

/**
 * The page of `rows` that `token` points at. `directions` is set for a range's ORDER BY rows
 * (`{ _rid, orderByItems, payload }`), which continue by position.
 */
export function pageRows(
  rows: unknown[],
  maxItemCount: number | undefined,
  token: string | undefined,
  directions?: number[],
): RowsPage {
  let start = 0;
  if (token !== undefined && token !== '') {
    const decoded = decode(token);
    if ('skip' in decoded) start = decoded.skip;
    else if (directions !== undefined) {
      const index = rows.findIndex((row) => comparePositions(positionOf(row), decoded.after, directions) > 0);
      start = index === -1 ? rows.length : index;
    } else throw invalidContinuation('the token does not belong to this query.');
  }
  const size = maxItemCount ?? rows.length;
  const items = rows.slice(start, start + size);
  // Unlike a plain query's, a last page here carries no continuation even when full: the SDK's GROUP BY merge stops
  // reading once it has every range's rows and would otherwise wait forever for a page it never asks for.
  if (start + size >= rows.length) return { items };
  const last = items[items.length - 1];
  const next: Token =
    directions !== undefined && last !== undefined ? { after: positionOf(last) } : { skip: start + size };
  return { items, continuation: JSON.stringify({ pipeline: next }) };
}
