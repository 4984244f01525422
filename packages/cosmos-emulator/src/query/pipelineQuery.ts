import { badRequest } from '../errors/errorFactory.js';
import { isAggregateName } from './aggregates.js';
import type { AggregateFunction } from './aggregates.js';
import {
  argumentsOf,
  callName,
  expressionText,
  findNodes,
  identifier,
  isNode,
  mapTree,
  member,
  objectOf,
  parameter,
  sameExpression,
} from './astTools.js';
import type { Clauses, Count } from './clauses.js';
import { parseSql } from './cosmosdbQuery.js';
import type { AstNode, ParsedQuery } from './cosmosdbQuery.js';
import { toExecutable } from './executable.js';
import type { Executable } from './executable.js';
import { bindSearchCalls, hasSearchCalls } from './searchFunctions.js';
import type { SearchCall } from './searchFunctions.js';

/*
 * A query the library cannot run as written (DISTINCT, GROUP BY, OFFSET LIMIT, ORDER BY on a computed value,
 * aggregates it lacks, search functions) is cut into library queries around which the pipeline does the rest:
 *
 * - rows: `SELECT VALUE { p: <projection>, r: <alias>._rid, o0.., g0.., a0.. } FROM ... WHERE ...` — one object per
 *   row with the projection, the ORDER BY values, the GROUP BY values and the aggregates' arguments (keys whose
 *   value is undefined are left out, so undefined stays apart from null);
 * - project: for aggregating queries, the SELECT evaluated once per group with no FROM, where every aggregate is a
 *   parameter `@__a<i>` and every GROUP BY expression a parameter `@__g<i>` bound to the group's values.
 */

/** One item of a `SELECT a, b AS x, COUNT(1)` list. */
interface SelectItem {
  /** The name the item gets in the result: its alias, the last property of a path, else `$1`, `$2`… */
  alias: string;
  /** Set when the item is an aggregate call itself (not an expression over one). */
  aggregate: AggregateFunction | undefined;
}

/** A sort key of ORDER BY. */
interface SortItem {
  expression: AstNode;
  /** As written; null when neither ASC nor DESC was given. */
  order: 'ASC' | 'DESC' | null;
  text: string;
}

/** Everything the pipeline needs of a query, compiled once per query text. */
export interface PipelineQuery {
  clauses: Clauses;
  top: Count | undefined;
  orderBy: SortItem[];
  groupBy: { expression: AstNode; text: string }[];
  aggregates: AggregateFunction[];
  /** The list of a list SELECT; undefined for `SELECT VALUE` and `SELECT *`. */
  items: SelectItem[] | undefined;
  hasSelectValue: boolean;
  /** Set for `SELECT VALUE <aggregate>(...)`. */
  valueAggregate: AggregateFunction | undefined;
  /** GROUP BY or any aggregate: rows are grouped before the projection. */
  aggregating: boolean;
  /** With ORDER BY RANK: the weights of its RRF components (empty for equal weights); `orderBy` holds the components. */
  rankWeights: number[] | undefined;
  /** Search function calls, whose hidden last argument `@__search<i>` the pipeline binds per container. */
  searchCalls: SearchCall[];
  rows: Executable;
  /** The per-group projection (aggregating queries only). */
  project: Executable | undefined;
  /** Per-group projection of list items that are not aggregates, for partial results (aggregating lists only). */
  projectItems: Executable | undefined;
}

function count(node: AstNode | null | undefined): Count | undefined {
  const value = (node as { value?: AstNode } | null | undefined)?.value;
  if (value === undefined) return undefined;
  if (value.type === 'number_constant') return { value: value['value'] as number };
  if (value.type === 'parameter_name') return { parameter: value['name'] as string };
  throw badRequest('TOP expects a non-negative integer or a parameter.');
}

function aliasOf(item: { property: AstNode; alias: AstNode | null }, unnamed: () => string): string {
  if (item.alias !== null) return String(item.alias['name']);
  const p = item.property;
  if (p.type === 'scalar_member_expression') {
    const property = p['property'] as AstNode;
    return String(p['computed'] === true ? property['value'] : property['name']);
  }
  if (p.type === 'identifier') return String(p['name']);
  return unnamed();
}

function rootAlias(body: AstNode): AstNode | undefined {
  const source = (body['from'] as { source?: { alias: AstNode | null; expression: AstNode } } | null)?.source;
  if (source === undefined) return undefined;
  return source.alias ?? (source.expression['expression'] as AstNode | undefined) ?? undefined;
}

const isAggregateCall = (node: AstNode): boolean => isAggregateName(callName(node) ?? '');

/**
 * The scores `ORDER BY RANK` ranks by: one FullTextScore or VectorDistance, or the arguments of `RRF(...)` with an
 * optional last array of weights.
 */
function rankComponents(sort: { expression: AstNode; order: 'ASC' | 'DESC' | null }[]): {
  components: { expression: AstNode; order: null }[];
  weights: number[];
} {
  const [first] = sort;
  if (first === undefined || sort.length > 1) throw badRequest('ORDER BY RANK takes exactly one scoring expression.');
  const args = callName(first.expression) === 'RRF' ? argumentsOf(first.expression) : [first.expression];
  const last = args[args.length - 1];
  const weights = last?.type === 'array_constant' ? (last['elements'] as AstNode[]).map((w) => Number(w['value'])) : [];
  const components = (weights.length > 0 ? args.slice(0, -1) : args).map((expression) => ({ expression, order: null }));
  if (components.some((c) => !['FULLTEXTSCORE', 'VECTORDISTANCE'].includes(callName(c.expression) ?? ''))) {
    throw badRequest('ORDER BY RANK ranks by FullTextScore, VectorDistance or RRF of them.');
  }
  return { components, weights };
}

/** Parses the GROUP BY expression list. */
function groupByExpressions(text: string | undefined): AstNode[] {
  if (text === undefined) return [];
  try {
    const value = (parseSql(`SELECT VALUE [${text}]`).ast.body['select'] as AstNode)['value'] as AstNode;
    return value['elements'] as AstNode[];
  } catch (error) {
    throw badRequest(`Syntax error in GROUP BY: ${(error as Error).message}`);
  }
}

/** Compiles a parsed query (its core, see `clauses.ts`) into the pipeline's parts. */
export function compilePipeline(clauses: Clauses, parsed: ParsedQuery): PipelineQuery {
  const searchCalls = bindSearchCalls(parsed.ast.body);
  const body = parsed.ast.body;
  const select = body['select'] as AstNode;
  const sort =
    (body['orderBy'] as { expressions?: { expression: AstNode; order: 'ASC' | 'DESC' | null }[] } | null)
      ?.expressions ?? [];
  const rank = clauses.rank ? rankComponents(sort) : undefined;
  const orderBy = (rank?.components ?? sort).map((s) => ({
    expression: s.expression,
    order: s.order,
    text: expressionText(s.expression),
  }));
  const groupBy = groupByExpressions(clauses.groupBy).map((expression) => ({
    expression,
    text: expressionText(expression),
  }));
  const calls = findNodes(select, isAggregateCall);
  const aggregating = groupBy.length > 0 || calls.length > 0;
  if (aggregating && orderBy.length > 0)
    throw badRequest('The emulator does not support ORDER BY together with GROUP BY or aggregates.');
  if (rank !== undefined && (aggregating || clauses.distinct))
    throw badRequest('ORDER BY RANK cannot be combined with GROUP BY, aggregates or DISTINCT.');
  const alias = rootAlias(body);
  const value = select['value'] as AstNode | undefined;
  const list = (select['properties'] as { properties: { property: AstNode; alias: AstNode | null }[] } | undefined)
    ?.properties;
  if (select['*'] === true && ((body['from'] as { joins?: unknown[] } | null)?.joins ?? []).length > 0) {
    throw badRequest("'SELECT *' is only valid with a single input set.");
  }
  let unnamed = 0;
  const items = list?.map((item) => ({
    alias: aliasOf(item, () => `$${++unnamed}`),
    aggregate: isAggregateCall(item.property) ? (callName(item.property) as AggregateFunction) : undefined,
  }));
  // Aliases are written out, so an item whose path becomes a parameter (GROUP BY) keeps its name.
  const named =
    list === undefined || items === undefined
      ? undefined
      : {
          type: 'object_property_list',
          properties: list.map((item, i) => ({ property: item.property, alias: identifier(items[i]?.alias ?? '') })),
        };
  const projection: AstNode | undefined = value ?? named ?? alias;
  if (projection === undefined) throw badRequest("'SELECT *' is not valid if FROM clause is omitted.");

  const entries: [string, AstNode][] = [];
  if (!aggregating) entries.push(['p', projection]);
  if (alias !== undefined) entries.push(['r', member(alias, '_rid')]);
  orderBy.forEach((o, i) => entries.push([`o${i}`, o.expression]));
  groupBy.forEach((g, i) => entries.push([`g${i}`, g.expression]));
  calls.forEach((call, i) => entries.push([`a${i}`, argumentsOf(call)[0] ?? { type: 'undefined_constant' }]));
  const rowsBody = {
    ...body,
    top: null,
    orderBy: null,
    select: { type: 'select_specification', value: objectOf(entries) },
  };
  const rows = toExecutable({ ast: { type: 'sql', body: rowsBody }, exec: parsed.exec });

  let project: Executable | undefined;
  let projectItems: Executable | undefined;
  if (aggregating) {
    // Every aggregate and GROUP BY expression becomes a parameter; what is left must not need a row.
    const bind = (node: AstNode): AstNode | undefined => {
      const a = calls.indexOf(node);
      if (a >= 0) return parameter(`@__a${a}`);
      const g = groupBy.findIndex((e) => sameExpression(e.expression, node));
      return g >= 0 ? parameter(`@__g${g}`) : undefined;
    };
    const single = (node: AstNode): Executable =>
      toExecutable({
        ast: {
          type: 'sql',
          body: {
            type: 'select_query',
            top: null,
            select: { type: 'select_specification', value: node },
            from: null,
            where: null,
            orderBy: null,
          },
        },
        exec: parsed.exec,
      });
    project = single(mapTree(projection, bind) as AstNode);
    if (list !== undefined && items !== undefined) {
      const plain = list.flatMap((item, i) =>
        items[i]?.aggregate === undefined
          ? [[items[i]?.alias ?? '', mapTree(item.property, bind) as AstNode] as [string, AstNode]]
          : [],
      );
      projectItems = single(objectOf(plain));
    }
  }
  return {
    clauses,
    top: count(body['top'] as AstNode | null),
    orderBy,
    groupBy,
    aggregates: calls.map((c) => callName(c) as AggregateFunction),
    items,
    hasSelectValue: value !== undefined,
    valueAggregate: value !== undefined && isAggregateCall(value) ? (callName(value) as AggregateFunction) : undefined,
    aggregating,
    rankWeights: rank?.weights,
    searchCalls,
    rows,
    project,
    projectItems,
  };
}

/** True when a parsed query can only run through the pipeline (aggregates or ORDER BY items the library lacks). */
export function needsPipeline(parsed: ParsedQuery): boolean {
  const body = parsed.ast.body;
  const libraryAggregates = ['COUNT', 'SUM', 'MIN', 'MAX', 'AVG'];
  if (findNodes(body['select'], (n) => isAggregateCall(n) && !libraryAggregates.includes(callName(n) ?? '')).length > 0)
    return true;
  if (hasSearchCalls(body)) return true;
  const sort = (body['orderBy'] as { expressions?: { expression: AstNode }[] } | null)?.expressions ?? [];
  return sort.some((s) => s.expression.type !== 'scalar_member_expression' || !isPath(s.expression));
}

function isPath(node: AstNode): boolean {
  if (node.type === 'identifier') return true;
  if (node.type !== 'scalar_member_expression') return false;
  const property = node['property'];
  return (
    isNode(property) &&
    (property.type === 'identifier' || property.type === 'string_constant') &&
    isPath(node['object'] as AstNode)
  );
}
