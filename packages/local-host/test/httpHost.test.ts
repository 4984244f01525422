import { afterEach, describe, expect, it } from 'vitest';
import type { HttpHandler, HttpMethod } from '@azure/functions';
import { HttpResponse } from '../src/azureFunctions.js';
import { DEFAULT_MAX_REQUEST_BODY_BYTES, startHttpHost } from '../src/http/httpHost.js';
import type { HttpHost } from '../src/http/httpHost.js';
import type { RegistrationOf } from '../src/registrations.js';
import { capturingLogger } from './support/logCapture.js';

const http = (name: string, handler: HttpHandler, route?: string, methods?: HttpMethod[]): RegistrationOf<'http'> => ({
  kind: 'http',
  name,
  options: { handler, route, methods, authLevel: 'function' },
});

let host: HttpHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

async function start(
  functions: RegistrationOf<'http'>[],
  maxRequestBodyBytes?: number,
): Promise<{ url: string; lines: Record<string, unknown>[] }> {
  const { logger, lines } = capturingLogger();
  host = await startHttpHost({ functions, logger, port: 0, maxRequestBodyBytes });
  return { url: host.url, lines };
}

describe('the local HTTP host', () => {
  it('routes templates under /api, passes route parameters and query, and answers jsonBody with its status', async () => {
    // Prepare
    const { url } = await start([
      http(
        'getOrder',
        (req) => ({ status: 200, jsonBody: { id: req.params.orderId, q: req.query.get('q') } }),
        'orders/{orderId}',
        ['GET'],
      ),
    ]);
    // Act
    const res = await fetch(`${url}/orders/o-7?q=x`);
    // Assess
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ id: 'o-7', q: 'x' });
  });

  it('hands the request body to the function and returns its status and headers', async () => {
    const { url } = await start([
      http(
        'postLedger',
        async (req) => ({
          status: 202,
          headers: { 'x-seen': req.headers.get('x-test') ?? '' },
          jsonBody: await req.json(),
        }),
        'ledgers',
        ['POST'],
      ),
    ]);
    const res = await fetch(`${url}/ledgers`, {
      method: 'POST',
      body: '{"ledgerId":"L-1"}',
      headers: { 'x-test': 'yes' },
    });
    expect(res.status).toBe(202);
    expect(res.headers.get('x-seen')).toBe('yes');
    expect(await res.json()).toEqual({ ledgerId: 'L-1' });
  });

  it('accepts an HttpResponse instance and a plain text body', async () => {
    const { url } = await start([http('teapot', () => new HttpResponse({ status: 418, body: 'short and stout' }))]);
    const res = await fetch(`${url}/teapot`);
    expect(res.status).toBe(418);
    expect(await res.text()).toBe('short and stout');
  });

  it('uses the function name as the default route and GET/POST as the default methods', async () => {
    const { url } = await start([http('ping', () => ({ body: 'pong' }))]);
    expect((await fetch(`${url}/ping`)).status).toBe(200);
    expect((await fetch(`${url}/ping`, { method: 'POST', body: 'x' })).status).toBe(200);
    expect((await fetch(`${url}/ping`, { method: 'DELETE' })).status).toBe(404);
  });

  it('answers 404 outside /api, for unknown routes and for methods a function does not accept', async () => {
    const { url } = await start([http('getOrder', () => ({ status: 200 }), 'orders/{orderId}', ['GET'])]);
    const root = url.replace(/\/api$/, '');
    expect((await fetch(`${root}/orders/o-1`)).status).toBe(404);
    expect((await fetch(`${url}/nothing`)).status).toBe(404);
    expect((await fetch(`${url}/orders/o-1`, { method: 'PUT', body: '' })).status).toBe(404);
  });

  it('prefers a literal route over a parameterised one', async () => {
    const { url } = await start([
      http('byId', () => ({ body: 'byId' }), 'orders/{orderId}', ['GET']),
      http('summary', () => ({ body: 'summary' }), 'orders/summary', ['GET']),
    ]);
    expect(await (await fetch(`${url}/orders/summary`)).text()).toBe('summary');
    expect(await (await fetch(`${url}/orders/o-1`)).text()).toBe('byId');
  });

  it('answers 500 when the function throws and logs the error through the invocation context', async () => {
    const { url, lines } = await start([
      http('boom', () => {
        throw new Error('kaput');
      }),
    ]);
    expect((await fetch(`${url}/boom`)).status).toBe(500);
    expect(lines.some((l) => l.function === 'boom' && l.level === 50 && String(l.msg).includes('kaput'))).toBe(true);
  });

  it('answers 413 for a body over the limit, declared or counted, without calling the function', async () => {
    // Prepare
    let calls = 0;
    const { url } = await start(
      [
        http(
          'echo',
          async (req) => {
            calls++;
            return { body: String((await req.arrayBuffer()).byteLength) };
          },
          'echo',
          ['POST'],
        ),
      ],
      1_000,
    );
    const chunks = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode('y'.repeat(500)));
        controller.close();
      },
    });
    // Act
    const atLimit = await fetch(`${url}/echo`, { method: 'POST', body: 'x'.repeat(1_000) });
    const declared = await fetch(`${url}/echo`, { method: 'POST', body: 'x'.repeat(1_001) });
    const counted = await fetch(`${url}/echo`, { method: 'POST', body: chunks, duplex: 'half' } as RequestInit);
    const after = await fetch(`${url}/echo`, { method: 'POST', body: 'abc' });
    // Assess
    expect([atLimit.status, await atLimit.text()]).toEqual([200, '1000']);
    expect(declared.status).toBe(413);
    expect(counted.status).toBe(413);
    expect(await after.text()).toBe('3');
    expect(calls).toBe(2);
    expect(DEFAULT_MAX_REQUEST_BODY_BYTES).toBe(104_857_600);
  });

  it('finds the route before reading the body: an unknown route answers 404 whatever the body', async () => {
    const { url } = await start([http('echo', () => ({ body: 'never' }), 'echo', ['POST'])], 10);
    expect((await fetch(`${url}/elsewhere`, { method: 'POST', body: 'x'.repeat(100) })).status).toBe(404);
  });

  it('lets an in-flight request finish when closed', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered: () => void = () => undefined;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const { url } = await start([
      http('slow', async () => {
        entered();
        await gate;
        return { body: 'done' };
      }),
    ]);
    const pending = fetch(`${url}/slow`);
    await inside;
    const closing = host?.close();
    host = undefined;
    release();
    const res = await pending;
    expect(await res.text()).toBe('done');
    await closing;
    await expect(fetch(`${url}/slow`)).rejects.toThrow();
  });
});
