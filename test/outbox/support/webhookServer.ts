import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One call the webhook received. */
export interface WebhookCall {
  key: string | undefined;
  traceparent: string | undefined;
  /** The event's data (a CloudEvent's `data`; an earlier record's whole body). */
  body: { orderId: string; sequence: number; entryId: string; order: Record<string, unknown> };
  /** The structured CloudEvent as received, when it was one. */
  event: Record<string, unknown> | undefined;
  /** The request's headers and its raw body, to verify a signature with. */
  headers: Record<string, string>;
  raw: string;
  status: number;
}

/** Options of {@link startWebhook}. */
export interface WebhookOptions {
  /** Answer 503 to the first `failFirst` calls of each idempotency key. @default 0 */
  failFirst?: number;
  /** Answer 500 while this returns true for a call. @default never */
  failWhen?: (body: WebhookCall['body']) => boolean;
}

/**
 * A webhook on 127.0.0.1:0 that records every call and applies each idempotency key once, the way a deduping
 * downstream consumer would: `applied` lists the keys in the order they were first accepted.
 */
export async function startWebhook(options: WebhookOptions = {}) {
  const calls: WebhookCall[] = [];
  const seen = new Map<string, number>();
  const applied: string[] = [];
  const appliedBodies = new Map<string, WebhookCall['body']>();
  const state = { failWhen: options.failWhen, failFirst: options.failFirst ?? 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const key = req.headers['idempotency-key'] as string | undefined;
      const raw = Buffer.concat(chunks).toString('utf8');
      const parsed = JSON.parse(raw) as Record<string, unknown>;
      const event = parsed.specversion === '1.0' ? parsed : undefined;
      const body = (event?.data ?? parsed) as WebhookCall['body'];
      const n = (seen.get(key ?? '') ?? 0) + 1;
      seen.set(key ?? '', n);
      let status = 204;
      if (n <= state.failFirst) status = 503;
      else if (state.failWhen?.(body)) status = 500;
      else if (key !== undefined && !appliedBodies.has(key)) {
        applied.push(key);
        appliedBodies.set(key, body);
      }
      const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]));
      calls.push({
        key,
        traceparent: req.headers.traceparent as string | undefined,
        body,
        event,
        headers,
        raw,
        status,
      });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/events`,
    calls,
    applied,
    appliedBodies,
    state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
