import { badRequest } from '../errors/errorFactory.js';
import type { JsonObject } from './types.js';

/** One patch operation as the SDK sends it (`PatchOperation`). */
export interface PatchOperation {
  op: 'add' | 'set' | 'replace' | 'remove' | 'incr' | 'move';
  path: string;
  value?: unknown;
  from?: string;
}

/** Body of a PATCH request (or of a batch `Patch` operation). */
export interface PatchBody {
  operations: PatchOperation[];
  /** Filter predicate such as `from c where c.status = 'open'`. */
  condition?: string;
}

type Container = JsonObject | unknown[];

/** Normalises a patch body: the SDK sends either `{ operations, condition? }` or a bare array. */
export function toPatchBody(value: unknown): PatchBody {
  const body: Partial<PatchBody> | null = Array.isArray(value)
    ? { operations: value as PatchOperation[] }
    : (value as Partial<PatchBody> | null);
  if (body === null || typeof body !== 'object' || !Array.isArray(body.operations)) {
    throw badRequest('A patch body needs an operations array.');
  }
  return { operations: body.operations, ...(typeof body.condition === 'string' && { condition: body.condition }) };
}

function segmentsOf(path: string): string[] {
  if (!path.startsWith('/')) throw badRequest(`Patch path '${path}' must start with '/'.`);
  return path
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Returns the parent container and final key of a path, failing on a missing parent. */
function locate(doc: JsonObject, path: string): { parent: Container; key: string } {
  const segments = segmentsOf(path);
  const key = segments.pop();
  if (key === undefined || key === '') throw badRequest(`Patch path '${path}' is invalid.`);
  let current: unknown = doc;
  for (const segment of segments) {
    const next: unknown = Array.isArray(current) ? current[Number(segment)] : (current as JsonObject | null)?.[segment];
    if (next === null || typeof next !== 'object') {
      throw badRequest(`Patch path '${path}' refers to a parent that does not exist.`);
    }
    current = next;
  }
  return { parent: current as Container, key };
}

function read(parent: Container, key: string): unknown {
  return Array.isArray(parent) ? parent[Number(key)] : parent[key];
}

function has(parent: Container, key: string): boolean {
  return Array.isArray(parent) ? Number(key) < parent.length : Object.prototype.hasOwnProperty.call(parent, key);
}

function write(parent: Container, key: string, value: unknown, insert: boolean): void {
  if (Array.isArray(parent)) {
    const index = key === '-' ? parent.length : Number(key);
    if (!Number.isInteger(index) || index < 0 || index > parent.length)
      throw badRequest(`Patch index '${key}' is out of range.`);
    if (insert) parent.splice(index, 0, value);
    else parent[index] = value;
  } else {
    parent[key] = value;
  }
}

function remove(parent: Container, key: string, path: string): unknown {
  if (!has(parent, key)) throw badRequest(`Patch path '${path}' does not exist.`);
  const value = read(parent, key);
  if (Array.isArray(parent)) parent.splice(Number(key), 1);
  else delete parent[key];
  return value;
}

/**
 * Applies patch operations to a deep copy of `doc` and returns the copy. Paths that touch `id` or a
 * partition key path are rejected, as the service does.
 */
export function applyPatch(doc: JsonObject, operations: PatchOperation[], protectedPaths: string[]): JsonObject {
  if (!Array.isArray(operations) || operations.length === 0 || operations.length > 10) {
    throw badRequest('A patch request must contain between 1 and 10 operations.');
  }
  const copy = structuredClone(doc);
  for (const operation of operations) {
    if (protectedPaths.includes(operation.path) || operation.path === '/id') {
      throw badRequest(`Patch cannot modify '${operation.path}' (id and partition key are immutable).`);
    }
    const { parent, key } = locate(copy, operation.path);
    switch (operation.op) {
      case 'add':
        write(parent, key, operation.value, Array.isArray(parent));
        break;
      case 'set':
        write(parent, key, operation.value, false);
        break;
      case 'replace':
        if (!has(parent, key)) throw badRequest(`Patch path '${operation.path}' does not exist.`);
        write(parent, key, operation.value, false);
        break;
      case 'remove':
        remove(parent, key, operation.path);
        break;
      case 'incr': {
        const current = has(parent, key) ? read(parent, key) : 0;
        if (typeof current !== 'number' || typeof operation.value !== 'number') {
          throw badRequest(`Patch 'incr' needs numbers at '${operation.path}'.`);
        }
        write(parent, key, current + operation.value, false);
        break;
      }
      case 'move': {
        if (operation.from === undefined) throw badRequest(`Patch 'move' needs 'from'.`);
        const source = locate(copy, operation.from);
        const value = remove(source.parent, source.key, operation.from);
        write(parent, key, value, false);
        break;
      }
      default:
        throw badRequest(`Patch operation '${String((operation as { op: unknown }).op)}' is not supported.`);
    }
  }
  return copy;
}
