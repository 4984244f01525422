import type { AstNode, ParsedQuery } from './cosmosdbQuery.js';

/*
 * A query's WHERE clause keeps a row only when it evaluates to `true`, and `a AND b` is `true` only
 * when both sides are. So every top-level conjunct of the form `c.p = <literal|@param>` or
 * `c.p IN (<literals|@params>)` must hold for a result row, and a document whose top-level `p` is not
 * one of those scalars can be skipped before the query runs. Everything else (OR at the top, NOT,
 * functions, nested paths, JOINs, non-scalar values) is simply not used for skipping: the full query
 * still runs over whatever is left, so a conservative analysis can only cost speed, never results.
 */

/** A scalar that `=` compares with `===` (the library's `equal` for same-typed scalars). */
export type IndexableValue = string | number | boolean | null;

type ValueSource = { literal: IndexableValue } | { parameter: string };

/** `c.<property>` must equal one of `values` (one value for `=`, several for `IN`). */
export interface EqualityConjunct {
  property: string;
  values: ValueSource[];
}

/** A conjunct with parameters bound. */
export interface ResolvedEquality {
  property: string;
  values: IndexableValue[];
}

/** True for values an equality pre-filter can use. */
export function isIndexable(value: unknown): value is IndexableValue {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

/** The FROM alias when the query reads whole documents of one collection without JOINs, else null. */
export function documentAlias(query: ParsedQuery): string | null {
  const from = query.ast.body['from'] as {
    source?: { expression?: AstNode; alias?: AstNode | null };
    joins?: unknown[] | null;
  } | null;
  const source = from?.source;
  if (source?.expression?.type !== 'collection_expression' || (from?.joins ?? []).length > 0) return null;
  const named = source.alias ?? (source.expression['expression'] as AstNode | undefined);
  return named?.type === 'identifier' && typeof named['name'] === 'string' ? named['name'] : null;
}

/** `alias.p` or `alias["p"]` → `p`; anything else (nested paths, other roots) → null. */
function topLevelProperty(node: AstNode, alias: string): string | null {
  if (node.type !== 'scalar_member_expression') return null;
  const object = node['object'] as AstNode;
  const property = node['property'] as AstNode;
  if (object.type !== 'identifier' || object['name'] !== alias) return null;
  if (node['computed'] !== true && property.type === 'identifier' && typeof property['name'] === 'string')
    return property['name'];
  if (node['computed'] === true && property.type === 'string_constant' && typeof property['value'] === 'string')
    return property['value'];
  return null;
}

function valueSource(node: AstNode): ValueSource | null {
  switch (node.type) {
    case 'string_constant':
    case 'number_constant':
    case 'boolean_constant':
      return isIndexable(node['value']) ? { literal: node['value'] } : null;
    case 'null_constant':
      return { literal: null };
    case 'parameter_name':
      return typeof node['name'] === 'string' ? { parameter: node['name'] } : null;
    default:
      return null;
  }
}

function conjunctsOf(node: AstNode, alias: string, out: EqualityConjunct[]): void {
  if (node.type === 'scalar_binary_expression' && String(node['operator']).toUpperCase() === 'AND') {
    conjunctsOf(node['left'] as AstNode, alias, out);
    conjunctsOf(node['right'] as AstNode, alias, out);
    return;
  }
  if (node.type === 'scalar_binary_expression' && node['operator'] === '=') {
    const left = node['left'] as AstNode;
    const right = node['right'] as AstNode;
    for (const [path, value] of [
      [left, right],
      [right, left],
    ] as const) {
      const property = topLevelProperty(path, alias);
      const source = valueSource(value);
      if (property !== null && source !== null) {
        out.push({ property, values: [source] });
        return;
      }
    }
    return;
  }
  if (node.type === 'scalar_in_expression' && node['not'] !== true) {
    const property = topLevelProperty(node['value'] as AstNode, alias);
    const sources = (node['list'] as AstNode[]).map(valueSource);
    if (property !== null && sources.length > 0 && sources.every((s) => s !== null))
      out.push({ property, values: sources as ValueSource[] });
  }
}

/** The equality conjuncts of a query's WHERE clause (empty when none can be used). */
export function equalityConjuncts(query: ParsedQuery): EqualityConjunct[] {
  const alias = documentAlias(query);
  const where = query.ast.body['where'] as { condition?: AstNode } | null;
  if (alias === null || where?.condition === undefined) return [];
  const out: EqualityConjunct[] = [];
  conjunctsOf(where.condition, alias, out);
  return out;
}

/**
 * Binds parameters. A conjunct whose parameter is missing or not a scalar is dropped (the query itself
 * decides what such a comparison means), which only makes the pre-filter less selective.
 */
export function resolveEqualities(
  conjuncts: EqualityConjunct[],
  parameters: { name: string; value: unknown }[] | undefined,
): ResolvedEquality[] {
  const bound = new Map((parameters ?? []).map((p) => [p.name, p.value] as const));
  const out: ResolvedEquality[] = [];
  for (const conjunct of conjuncts) {
    const values = conjunct.values.map((v) => ('literal' in v ? v.literal : bound.get(v.parameter)));
    if (values.every(isIndexable)) out.push({ property: conjunct.property, values });
  }
  return out;
}

/** True when the document passes every equality (the cheap check run before the full query). */
export function satisfiesEqualities(body: Record<string, unknown>, equalities: ResolvedEquality[]): boolean {
  for (const { property, values } of equalities) {
    const actual = Object.prototype.hasOwnProperty.call(body, property) ? body[property] : undefined;
    if (!values.includes(actual as IndexableValue)) return false;
  }
  return true;
}
