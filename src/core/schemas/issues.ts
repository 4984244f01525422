import type { z } from 'zod';
import type { ValidationIssue } from '../errors.js';

/** Formats a zod path as `entries[3].orderId`; the empty path is the whole body. @internal */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out;
}

/**
 * Maps zod issues onto the public `{ path, message }` shape. An unknown property is reported at its own path
 * (`entries[0].data.note`) so operators see which key to remove.
 */
export function toValidationIssues(issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({ path: formatPath([...issue.path, key]), message: 'Unknown property' });
      }
    } else {
      out.push({ path: formatPath(issue.path), message: issue.message });
    }
  }
  return out;
}
