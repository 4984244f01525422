import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceBusClient } from '@azure/service-bus';
import { start } from '../../src/index.js';
import type { RunningEmulator } from '../../src/index.js';
import { fastClientOptions } from '../helpers.js';
import { ROOT, sasToken } from '../rawAmqp.js';

/** `fetch` with the `Authorization` header the SDKs send: a signature for the URL with the root key. */
export function signedFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('authorization', sasToken(url.toLowerCase(), ROOT.keyName, ROOT.key));
  return fetch(url, { ...init, headers });
}
import { AdminClientProcess } from './adminClientProcess.js';

/** A free TCP port on 127.0.0.1 (the admin ports take 0 as "off", not "any"). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** An emulator with both admin ports, an AMQP client, and the administration client in its own process. */
export interface AdminStack {
  emulator: RunningEmulator;
  client: ServiceBusClient;
  admin: AdminClientProcess;
  /** `http://127.0.0.1:<adminPort>` for raw requests. */
  http: string;
  /** The HTTPS port's certificate file, for another administration client process. */
  certOut: string;
  close(): Promise<void>;
}

/** Starts the emulator on free ports with `config` (and `dataDir`), writing its certificate for the child. */
export async function startAdminStack(config: object, dataDir?: string): Promise<AdminStack> {
  const certDir = await mkdtemp(join(tmpdir(), 'sb-cert-'));
  const certOut = join(certDir, 'servicebus-admin.pem');
  const emulator = await start({
    port: 0,
    adminPort: await freePort(),
    adminHttpsPort: await freePort(),
    certOut,
    config,
    dataDir,
  });
  const client = new ServiceBusClient(emulator.connectionString, fastClientOptions);
  const admin = new AdminClientProcess(emulator.administrationConnectionString as string, certOut);
  return {
    emulator,
    client,
    admin,
    http: `http://127.0.0.1:${emulator.adminPort}`,
    certOut,
    async close() {
      await admin.close();
      await client.close();
      await emulator.close();
      await rm(certDir, { recursive: true, force: true });
    },
  };
}
