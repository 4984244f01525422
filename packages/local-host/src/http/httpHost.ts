import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { ThroughputSummary } from '../logging/throughputSummary.js';
import { HttpRequest } from '../azureFunctions.js';
import { createInvocationContext } from '../logging/invocationContext.js';
import { inInvocation } from '../logging/logOutput.js';
import type { RegistrationOf } from '../registrations.js';
import { compileRoute } from './routeTemplate.js';
import type { RouteTemplate } from './routeTemplate.js';
import { writeFunctionResponse } from './toNodeResponse.js';

/** Options of {@link startHttpHost}. */
interface HttpHostOptions {
  functions: readonly RegistrationOf<'http'>[];
  logger: Logger;
  /** Counts each invocation's outcome for the periodic summary line. @default none */
  summary?: ThroughputSummary;
  /** @default '127.0.0.1' */
  host?: string;
  /** 0 picks a free port. @default 7071 */
  port?: number;
  /** host.json `extensions.http.routePrefix`. @default 'api' */
  routePrefix?: string;
  /**
   * Largest request body read; a longer one is answered 413 without reaching a function.
   * @default {@link DEFAULT_MAX_REQUEST_BODY_BYTES}
   */
  maxRequestBodyBytes?: number;
}

/** The Functions host's documented HTTP request length limit: 100 MB (104,857,600 bytes). @internal */
export const DEFAULT_MAX_REQUEST_BODY_BYTES = 104_857_600;

/** A running HTTP trigger host. */
export interface HttpHost {
  /** `http://host:port/api`, with the port actually bound. */
  readonly url: string;
  /** Stops accepting connections and resolves once in-flight requests have been answered. */
  close(): Promise<void>;
}

interface Route {
  registration: RegistrationOf<'http'>;
  template: RouteTemplate;
  methods: ReadonlySet<string>;
}

/**
 * Serves HTTP functions as the Functions host does: `/<routePrefix>/<route>` (route defaults to the function
 * name), `methods` defaulting to GET and POST, the library's `HttpRequest`/`HttpResponse`, 500 on a thrown
 * error and 404 when no function matches. The route is found before the body is read (a 404 reads none), and a
 * body over `maxRequestBodyBytes` — declared in `content-length` or counted while reading — is answered 413.
 * authLevel is not enforced, as under `func start`.
 */
export async function startHttpHost(options: HttpHostOptions): Promise<HttpHost> {
  const { logger } = options;
  const prefix = (options.routePrefix ?? 'api').replace(/^\/+|\/+$/g, '');
  const maxBodyBytes = options.maxRequestBodyBytes ?? DEFAULT_MAX_REQUEST_BODY_BYTES;
  const routes: Route[] = options.functions.map((registration) => ({
    registration,
    template: compileRoute(registration.options.route ?? registration.name),
    methods: new Set((registration.options.methods ?? ['GET', 'POST']).map((m) => m.toUpperCase())),
  }));

  let closing = false;
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      logger.error({ err: error, url: req.url }, 'http request failed');
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
    const found = findRoute(routes, prefix, url.pathname, method);
    if (!found) {
      res.writeHead(404, { 'content-length': '0' });
      res.end();
      return;
    }
    const body = await readBody(req, maxBodyBytes);
    if (body === undefined) {
      tooLarge(req, res);
      return;
    }
    const { route, params } = found;
    const request = new HttpRequest({
      method,
      url: url.toString(),
      headers: flattenHeaders(req),
      body: body.length > 0 ? { bytes: body } : undefined,
      params,
    });
    const traceParent = request.headers.get('traceparent') ?? undefined;
    const context = createInvocationContext(logger, {
      functionName: route.registration.name,
      traceContext: traceParent
        ? { traceParent, traceState: request.headers.get('tracestate') ?? undefined }
        : undefined,
    });
    const started = performance.now();
    let status = 500;
    try {
      const result: unknown = await inInvocation(
        { function: route.registration.name, invocationId: context.invocationId },
        () => route.registration.options.handler(request, context),
      );
      // While draining, end each connection with its response so close() does not wait for keep-alive timeouts.
      if (closing) res.shouldKeepAlive = false;
      await writeFunctionResponse(result, res, method);
      status = res.statusCode;
    } catch (error) {
      context.error('function threw', error);
      if (!res.headersSent) res.writeHead(500, { 'content-length': '0' });
      res.end();
    } finally {
      options.summary?.record(route.registration.name, `× ${status}`);
      logger.debug(
        {
          function: route.registration.name,
          method,
          path: url.pathname,
          status,
          durationMs: Math.round(performance.now() - started),
        },
        'http request',
      );
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 7071, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address}:${address.port}/${prefix}`,
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        // close() waits for in-flight requests; idle keep-alive sockets would otherwise hold it open.
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

function findRoute(
  routes: readonly Route[],
  prefix: string,
  pathname: string,
  method: string,
): { route: Route; params: Record<string, string> } | undefined {
  const segments = pathname.split('/').filter((s) => s !== '');
  if (prefix !== '' && segments.shift()?.toLowerCase() !== prefix.toLowerCase()) return undefined;
  const path = segments.join('/');
  // The most specific template wins (fewest captured parameters), as with ASP.NET route precedence.
  let best: { route: Route; params: Record<string, string> } | undefined;
  for (const route of routes) {
    if (!route.methods.has(method)) continue;
    const params = route.template.match(path);
    if (params && (!best || Object.keys(params).length < Object.keys(best.params).length)) best = { route, params };
  }
  return best;
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** The whole body, or undefined as soon as it is known to exceed `maxBytes` (the rest is left unread). */
function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve(undefined);
  // Events rather than `for await`: leaving that loop early destroys the request, and with it the socket the 413
  // still has to go out on.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const onData = (chunk: Buffer): void => {
      length += chunk.length;
      if (length <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      req.off('data', onData).off('end', onEnd).off('error', reject);
      req.pause();
      resolve(undefined);
    };
    const onEnd = (): void => resolve(Buffer.concat(chunks, length));
    req.on('data', onData).once('end', onEnd).once('error', reject);
  });
}

/** 413, then the connection is closed: the unread rest of the body is not worth receiving. */
function tooLarge(req: IncomingMessage, res: ServerResponse): void {
  res.shouldKeepAlive = false;
  res.writeHead(413, { 'content-length': '0', connection: 'close' });
  // Keep draining what the client is still sending until the socket closes, so it sees the answer, not a reset.
  res.end(() => req.resume());
}
