/**
 * A stored document without the properties Cosmos DB adds (`_rid`, `_self`, `_etag`, `_ts`, `_lsn`,
 * `_attachments`): our documents have no `_` fields of their own, so what is left is the document as written.
 */
export function withoutSystemProperties<T extends object>(resource: object): T {
  const doc: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(resource)) if (!key.startsWith('_')) doc[key] = value;
  return doc as T;
}
