import type { z } from 'zod';

/** Thrown when Config.json is invalid; the message names the entity and the field. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

function fail(where: string, issue: z.core.$ZodIssue): never {
  const field = issue.path.map(String).join('.') || '(root)';
  throw new ConfigError(`Invalid Service Bus config: ${where}: field "${field}": ${issue.message}`);
}

/** Validates `value` against `schema`, throwing a {@link ConfigError} that names `where` and the field. */
export function parse<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  const result = schema.safeParse(value);
  if (!result.success) fail(where, result.error.issues[0] as z.core.$ZodIssue);
  return result.data;
}
