import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FunctionApi } from '../src/httpApi.js';

/** A stand-in function app answering `statuses` in turn (the last one from then on); counts the requests. */
async function app(statuses: number[]): Promise<{ server: Server; url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((req, res) => {
    const status = statuses[Math.min(requests++, statuses.length - 1)] as number;
    req.resume();
    if (status === 503) res.writeHead(503, { 'retry-after': '0' }).end('{"error":"ServiceUnavailable"}');
    else if (status === 200) res.writeHead(200, { 'content-type': 'application/json' }).end('{"orderId":"o-1"}');
    else res.writeHead(status).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests };
}

describe('FunctionApi', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  it('tries again after a 503 as its Retry-After says', async () => {
    // Prepare
    const stand = await app([503, 503, 200]);
    server = stand.server;
    const api = new FunctionApi({ httpBaseUrl: stand.url, functionKey: undefined });
    // Act
    const view = await api.getOrder('o-1');
    // Assess
    expect(view).toEqual({ orderId: 'o-1' });
    expect(stand.requests()).toBe(3);
  });

  it('answers busy for an order the app still cannot read after its retries, for a poller to look again', async () => {
    // Prepare
    const stand = await app([503, 503, 503, 200]);
    server = stand.server;
    const api = new FunctionApi({ httpBaseUrl: stand.url, functionKey: undefined }, { retries: 2 });
    // Act
    const first = await api.getOrderUnlessBusy('o-1');
    const second = await api.getOrderUnlessBusy('o-1');
    // Assess
    expect(first).toBe('busy');
    expect(second).toEqual({ orderId: 'o-1' });
    expect(stand.requests()).toBe(4);
  });

  it('gives up with the 503 after its retries', async () => {
    // Prepare
    const stand = await app([503]);
    server = stand.server;
    const api = new FunctionApi({ httpBaseUrl: stand.url, functionKey: undefined }, { retries: 2 });
    // Act / Assess
    await expect(
      api.postLedger({ ledgerId: 'l-1', entries: [] } as unknown as Parameters<FunctionApi['postLedger']>[0]),
    ).rejects.toThrow(/POST \/api\/ledgers \(l-1\) answered 503/);
    expect(stand.requests()).toBe(3);
  });
});
