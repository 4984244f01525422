import type { AstNode } from './cosmosdbQuery.js';

/*
 * Small tools over the query library's AST (plain objects with a `type`), used to rebuild queries the library
 * runs for the pipeline: the nodes are the library's, so what they mean is the library's.
 */

/** Node types that open a nested query, whose aggregates and aliases are its own. */
const SUBQUERIES = new Set([
  'array_subquery_expression',
  'exists_subquery_expression',
  'scalar_subquery_expression',
  'collection_subquery_expression',
]);

/** `name` as an identifier. */
export const identifier = (name: string): AstNode => ({ type: 'identifier', name });

/** `@name` (pass the leading `@`). */
export const parameter = (name: string): AstNode => ({ type: 'parameter_name', name });

/** `object.name`. */
export const member = (object: AstNode, name: string): AstNode => ({
  type: 'scalar_member_expression',
  object,
  property: identifier(name),
  computed: false,
});

/** `{ "k1": v1, ... }` built from entries (a key whose value is undefined is left out when evaluated). */
export function objectOf(entries: [string, AstNode][]): AstNode {
  return {
    type: 'scalar_object_expression',
    properties: entries.map(([key, value]) => ({ key: { type: 'string_constant', value: key }, value })),
  };
}

/** True for a node of the AST (an object with a string `type`). */
export function isNode(value: unknown): value is AstNode {
  return (
    value !== null && typeof value === 'object' && !Array.isArray(value) && typeof (value as AstNode).type === 'string'
  );
}

/** The function name of a call node (upper case), or undefined for anything else and for `udf.` calls. */
export function callName(node: AstNode): string | undefined {
  if (node.type !== 'scalar_function_expression' || node['udf'] === true) return undefined;
  const name = (node['name'] as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name.toUpperCase() : undefined;
}

/** A call node's arguments. */
export const argumentsOf = (node: AstNode): AstNode[] => (node['arguments'] as AstNode[] | undefined) ?? [];

/**
 * A deep copy of `node` where `replace` may substitute any node (returning undefined keeps it and goes on
 * inside). With `intoSubqueries` false, nested queries are copied untouched.
 */
export function mapTree(node: unknown, replace: (n: AstNode) => AstNode | undefined, intoSubqueries = false): unknown {
  if (Array.isArray(node)) return node.map((child) => mapTree(child, replace, intoSubqueries));
  if (node === null || typeof node !== 'object') return node;
  if (isNode(node)) {
    const replaced = replace(node);
    if (replaced !== undefined) return replaced;
    if (!intoSubqueries && SUBQUERIES.has(node.type)) return structuredClone(node);
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = mapTree(value, replace, intoSubqueries);
  return out;
}

/** Every node of a tree that `test` accepts (nested queries skipped unless `intoSubqueries`). */
export function findNodes(node: unknown, test: (n: AstNode) => boolean, intoSubqueries = false): AstNode[] {
  const found: AstNode[] = [];
  mapTree(
    node,
    (n) => {
      if (test(n)) found.push(n);
      return undefined;
    },
    intoSubqueries,
  );
  return found;
}

/** True when two expressions are written the same way. */
export function sameExpression(a: AstNode, b: AstNode): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Best-effort SQL text of an expression (for the query plan's expression lists and the SDK's resume filters). */
export function expressionText(node: AstNode): string {
  switch (node.type) {
    case 'identifier':
      return String(node['name']);
    case 'parameter_name':
      return String(node['name']);
    case 'scalar_member_expression': {
      const object = expressionText(node['object'] as AstNode);
      const property = node['property'] as AstNode;
      return node['computed'] === true
        ? `${object}[${JSON.stringify(property['value'])}]`
        : `${object}.${String(property['name'])}`;
    }
    case 'string_constant':
      return JSON.stringify(node['value']);
    case 'number_constant':
    case 'boolean_constant':
      return String(node['value']);
    case 'null_constant':
      return 'null';
    case 'array_constant':
    case 'scalar_array_expression':
      return `[${(node['elements'] as AstNode[]).map(expressionText).join(', ')}]`;
    case 'scalar_function_expression':
      return `${String((node['name'] as AstNode)['name'])}(${argumentsOf(node).map(expressionText).join(', ')})`;
    default:
      return node.type;
  }
}
