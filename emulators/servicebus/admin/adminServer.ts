import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Broker } from '../broker/broker.js';

/**
 * The operator view: `GET /health` answers as the official emulator does, `GET /stats` gives per-entity
 * counts and, for session entities, each session's depth and lock holder.
 */
export class AdminServer {
  private server: Server | undefined;

  constructor(private readonly broker: Broker) {}

  /** Listens; resolves with the bound port. */
  listen(host: string, port: number): Promise<number> {
    const server = createServer((req, res) => {
      const send = (status: number, body: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const path = (req.url ?? '/').split('?')[0];
      if (req.method !== 'GET') return send(405, { error: 'method not allowed' });
      if (path === '/health') return send(200, { status: 'healthy' });
      if (path === '/stats') return send(200, { entities: this.broker.stats() });
      return send(404, { error: 'not found' });
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
    });
  }

  /** Stops listening. */
  close(): Promise<void> {
    const server = this.server;
    if (!server) return Promise.resolve();
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  }
}
