import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readEventBody } from './observe.js';

/** One POST the webhook received, whatever it answered. */
export interface WebhookPost {
  idempotencyKey: string;
  /** The event's (`source`, `id`), what a consumer dedupes on. */
  key: string;
  orderId: string | undefined;
  sequence: number | undefined;
  /** 200, or 503 when an outage failed it. */
  status: number;
  /** Epoch ms it arrived. */
  at: number;
}

/** The chaos run's webhook: records every POST and fails the orders of an outage while it lasts. */
export interface WebhookTarget {
  /** The URL the hosts get as `OUTBOX_WEBHOOK_URL`. */
  readonly url: string;
  readonly posts: readonly WebhookPost[];
  /**
   * Answers 503 to the POSTs of `orderIds` from now until `downMs` after the first POST it failed and until
   * `isHeld` says the relay put one of them on hold — so the outage outlasts the relay's retry budget however late
   * or slowly the relay meets it — or until {@link WebhookTarget.recover}.
   */
  fail(orderIds: readonly string[], downMs: number, isHeld: (orderId: string) => boolean): void;
  /**
   * Resolves `true` once every outage has failed a POST, lasted its `downMs` and seen a hold (a relay that stalled
   * through the window meets its outage late, but meets it), or `false` after `guardMs`.
   */
  outagesOver(guardMs: number): Promise<boolean>;
  /** Ends every outage now. */
  recover(): void;
  /** Orders some outage failed at least one POST of. */
  readonly failedOrders: ReadonlySet<string>;
  close(): Promise<void>;
}

/** Starts the webhook on a free local port. */
export async function startWebhookTarget(): Promise<WebhookTarget> {
  const posts: WebhookPost[] = [];
  const outages = new Map<string, Outage>(); // by orderId; one object per outage
  const failedOrders = new Set<string>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST') {
        response.writeHead(405).end();
        return;
      }
      const { key, orderId, sequence } = readEventBody(Buffer.concat(chunks));
      const outage = orderId === undefined ? undefined : outages.get(orderId);
      if (outage !== undefined) outage.endsAt ??= Date.now() + outage.downMs;
      const down = outage !== undefined && !isOver(outage);
      if (down && orderId !== undefined) failedOrders.add(orderId);
      const status = down ? 503 : 200;
      posts.push({
        idempotencyKey: String(request.headers['idempotency-key'] ?? ''),
        key,
        orderId,
        sequence,
        status,
        at: Date.now(),
      });
      response.writeHead(status, { 'content-type': 'text/plain' }).end(down ? 'outage' : 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/order-events`,
    posts,
    failedOrders,
    fail(orderIds, downMs, isHeld) {
      const outage: Outage = { orderIds, downMs, isHeld };
      for (const id of orderIds) outages.set(id, outage);
    },
    async outagesOver(guardMs) {
      const over = () => [...outages.values()].every(isOver);
      for (const deadline = Date.now() + guardMs; !over();) {
        if (Date.now() >= deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      return true;
    },
    recover() {
      outages.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Outage {
  orderIds: readonly string[];
  downMs: number;
  isHeld: (orderId: string) => boolean;
  /** Set by the first POST it fails. */
  endsAt?: number;
}

/** Over once it failed a POST, lasted its time and the relay held one of its orders: a hold is what it is for. */
function isOver(outage: Outage): boolean {
  return outage.endsAt !== undefined && Date.now() >= outage.endsAt && outage.orderIds.some(outage.isHeld);
}
