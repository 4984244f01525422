/**
 * W3C trace context as order messages carry it. The Azure SDKs put it in the `traceparent` application property
 * (newer ones) and in `Diagnostic-Id` (older ones, which may also hold a legacy Request-Id there). The core reads
 * it once per message and keeps it on the documents the message produces, so whoever delivers the stored event
 * later — another instance, after a restart — still continues the entry's trace.
 */

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

/** Application properties that may carry a traceparent, most specific first. */
const TRACEPARENT_PROPERTIES = ['traceparent', 'Diagnostic-Id'] as const;

/** True for a well-formed W3C `traceparent`: known version, non-zero trace id and parent id. */
export function isTraceparent(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const match = TRACEPARENT.exec(value);
  if (!match) return false;
  const [, version, traceId, parentId] = match as unknown as [string, string, string, string];
  return version !== 'ff' && !/^0+$/.test(traceId) && !/^0+$/.test(parentId);
}

/**
 * The W3C traceparent of a message: its `traceparent` application property, else its `Diagnostic-Id` when that
 * is in traceparent format. Keys are compared without case, since hosts may re-case them (`diagnostic-Id`).
 */
export function messageTraceparent(properties: Readonly<Record<string, unknown>> | undefined): string | undefined {
  if (!properties) return undefined;
  const entries = Object.entries(properties);
  for (const wanted of TRACEPARENT_PROPERTIES) {
    const name = wanted.toLowerCase();
    for (const [key, value] of entries) {
      if (key.toLowerCase() === name && isTraceparent(value)) return value;
    }
  }
  return undefined;
}
