import type { ContainerResource, StoredDocument } from './types.js';

/**
 * Epoch ms at which a document expires, or null when it never does. Mirrors the service's rules:
 * no `defaultTtl` on the container → TTL off (item `ttl` ignored); `defaultTtl: -1` → on, items
 * expire only with their own positive `ttl`; `defaultTtl: n` → items expire after their own `ttl`
 * or n seconds; an item `ttl` of -1 never expires.
 */
function expiresAt(doc: StoredDocument, container: ContainerResource): number | null {
  const defaultTtl = container.defaultTtl;
  if (defaultTtl === undefined || defaultTtl === null) return null;
  const itemTtl = doc.body['ttl'];
  let seconds: number | null;
  if (typeof itemTtl === 'number' && Number.isFinite(itemTtl)) {
    seconds = itemTtl === -1 ? null : itemTtl;
  } else {
    seconds = defaultTtl === -1 ? null : defaultTtl;
  }
  if (seconds === null || seconds <= 0) return null;
  return doc.writtenAt + seconds * 1000;
}

/** True when the document has expired at `now` (epoch ms). */
export function isExpired(doc: StoredDocument, container: ContainerResource, now: number): boolean {
  const at = expiresAt(doc, container);
  return at !== null && now >= at;
}
