import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Broker } from '../broker/broker.js';
import type { TlsMaterial } from '@ledger-convoy/dev-certificate';
import type { AtomRouter } from './atom/atomRouter.js';
import { errorReply } from './atom/atomRouter.js';

/** Largest management request body accepted (a description is a few kilobytes). */
const MAX_BODY = 1024 * 1024;

/**
 * The admin port. A request carrying `api-version` is the ATOM management API (as on Azure and the official
 * emulator); otherwise `GET /health` answers as the official emulator does and `GET /stats` gives per-entity
 * counts and, for session entities, each session's depth and lock holder. The same routes are served over
 * HTTP and, when given a certificate, HTTPS (the JS administration client only speaks HTTPS).
 */
export class AdminServer {
  private readonly servers: Server[] = [];

  constructor(
    private readonly broker: Broker,
    private readonly atom?: AtomRouter,
  ) {}

  /** Listens over HTTP; resolves with the bound port. */
  listen(host: string, port: number): Promise<number> {
    return this.bind(
      createServer((req, res) => this.serve(req, res, 'http')),
      host,
      port,
    );
  }

  /** Listens over HTTPS with `tls`; resolves with the bound port. */
  listenTls(host: string, port: number, tls: TlsMaterial): Promise<number> {
    return this.bind(
      createTlsServer({ cert: tls.certPem, key: tls.keyPem }, (req, res) => this.serve(req, res, 'https')),
      host,
      port,
    );
  }

  private bind(server: Server, host: string, port: number): Promise<number> {
    this.servers.push(server);
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
    });
  }

  private serve(req: IncomingMessage, res: ServerResponse, scheme: 'http' | 'https'): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (this.atom && url.searchParams.has('api-version')) {
      void this.serveAtom(req, res, url, scheme);
      return;
    }
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'GET') return send(405, { error: 'method not allowed' });
    if (url.pathname === '/health') return send(200, { status: 'healthy' });
    if (url.pathname === '/stats') return send(200, { entities: this.broker.stats() });
    return send(404, { error: 'not found' });
  }

  private async serveAtom(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    scheme: 'http' | 'https',
  ): Promise<void> {
    const atom = this.atom as AtomRouter;
    let reply;
    try {
      const body = await readBody(req);
      const host = req.headers.host ?? 'localhost';
      reply = await atom.handle({
        method: req.method ?? 'GET',
        path: decodeURIComponent(url.pathname.replace(/^\/+/, '')),
        query: url.searchParams,
        base: `${scheme}://${host}`,
        host,
        ifMatch: req.headers['if-match'] !== undefined,
        body,
        authorization: req.headers.authorization,
      });
    } catch (err) {
      reply =
        err instanceof BodyTooLarge
          ? errorReply(413, err.message)
          : errorReply(500, `The management request failed: ${(err as Error).message}`);
    }
    res.writeHead(reply.status, { 'content-type': reply.contentType });
    res.end(reply.body);
  }

  /** Stops listening. */
  async close(): Promise<void> {
    await Promise.all(
      this.servers.map((server) => {
        server.closeAllConnections();
        return new Promise<void>((resolve) => server.close(() => resolve()));
      }),
    );
    this.servers.length = 0;
  }
}

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new BodyTooLarge(`The request body is over ${MAX_BODY} bytes.`));
        req.removeAllListeners('data');
        req.resume();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
