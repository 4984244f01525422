import { CosmosClient } from '@azure/cosmos';
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent, get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start } from '../src/index.js';
import type { CosmosEmulator } from '../src/index.js';
import { CERT_FILE } from '@ledger-convoy/dev-certificate';
import { masterKeyAuth, uniqueName } from './harness.js';

/** A client that fails fast: no endpoint discovery detours, no retries hiding the first error. */
function client(emulator: CosmosEmulator, agent?: Agent): CosmosClient {
  return new CosmosClient({
    endpoint: emulator.endpoint,
    key: emulator.key,
    ...(agent !== undefined && { agent }),
    connectionPolicy: {
      enableEndpointDiscovery: false,
      requestTimeout: 5_000,
      retryOptions: { maxRetryAttemptCount: 0, fixedRetryIntervalInMilliseconds: 0, maxWaitTimeInSeconds: 0 },
    },
  });
}

/** GET over HTTPS trusting only `ca`. */
function httpsGet(
  url: string,
  ca: string,
  headers: Record<string, string> = {},
): Promise<{ status: number | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { ca, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode, body }));
    }).on('error', reject);
  });
}

/** Runs a CommonJS snippet in a fresh node process; resolves with its exit code. */
function exitCode(script: string, env: Record<string, string>): Promise<number | null> {
  const { NODE_EXTRA_CA_CERTS: _ignored, ...base } = process.env;
  const child = spawn(process.execPath, ['-e', script], { env: { ...base, ...env }, stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    child.once('exit', resolve);
    child.once('error', reject);
  });
}

describe('cosmos emulator over HTTPS', () => {
  let emulator: CosmosEmulator;
  let certificatePem: string;

  beforeAll(async () => {
    emulator = await start({ port: 0, https: true });
    certificatePem = emulator.certificatePem ?? '';
  });
  afterAll(async () => {
    await emulator.close();
  });

  it('serves https on 127.0.0.1 with a certificate covering localhost and 127.0.0.1', () => {
    expect(emulator.endpoint).toBe(`https://127.0.0.1:${emulator.port}/`);
    expect(emulator.connectionString).toContain(`AccountEndpoint=https://127.0.0.1:${emulator.port}/;`);
    const cert = new X509Certificate(certificatePem);
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(Date.parse(cert.validTo)).toBeGreaterThan(Date.now() + 30 * 24 * 3600 * 1000);
  });

  it('lets the SDK create and read resources when its agent trusts the certificate', async () => {
    const agent = new Agent({ ca: certificatePem, keepAlive: true });
    const sdk = client(emulator, agent);
    try {
      const { database } = await sdk.databases.create({ id: uniqueName('db') });
      const { container } = await database.containers.create({
        id: uniqueName('coll'),
        partitionKey: { paths: ['/orderId'] },
      });
      await container.items.create({ id: 'doc-1', orderId: 'order-1', amount: 42 });
      const { resource, statusCode } = await container.item('doc-1', 'order-1').read<{ amount: number }>();
      expect(statusCode).toBe(200);
      expect(resource?.amount).toBe(42);
    } finally {
      sdk.dispose();
      agent.destroy();
    }
  });

  it('advertises its https endpoint in the account locations', async () => {
    const date = new Date().toUTCString();
    const headers = { 'x-ms-date': date, authorization: masterKeyAuth(emulator.key, 'GET', '', '', date) };
    const { status, body } = await httpsGet(emulator.endpoint, certificatePem, headers);
    expect(status).toBe(200);
    const account = JSON.parse(body) as { writableLocations: { databaseAccountEndpoint: string }[] };
    expect(account.writableLocations[0]?.databaseAccountEndpoint).toBe(`https://127.0.0.1:${emulator.port}/`);
  });

  it('is refused by a client that does not trust the certificate', async () => {
    const sdk = client(emulator);
    try {
      const failure = await sdk.databases.create({ id: uniqueName('db') }).then(
        () => undefined,
        (error: unknown) => error as { code?: unknown; message?: unknown },
      );
      expect(failure).toBeDefined();
      expect(`${String(failure?.code)} ${String(failure?.message)}`).toMatch(/SELF_SIGNED|self[- ]signed certificate/i);
    } finally {
      sdk.dispose();
    }
  });

  it('keeps the same certificate across restarts on one data dir, and replaces a corrupt one', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'cosmos-https-'));
    try {
      const first = await start({ port: 0, https: true, dataDir });
      await first.close();
      const second = await start({ port: 0, https: true, dataDir });
      await second.close();
      expect(second.certificatePem).toBe(first.certificatePem);
      expect(second.certificatePem).not.toBe(certificatePem);

      await writeFile(join(dataDir, CERT_FILE), 'not a certificate');
      const third = await start({ port: 0, https: true, dataDir });
      try {
        expect(third.certificatePem).not.toBe(first.certificatePem);
        expect(await readFile(join(dataDir, CERT_FILE), 'utf8')).toBe(third.certificatePem);
        expect(
          (await httpsGet(new URL('/_emulator/counters', third.endpoint).href, third.certificatePem ?? '')).status,
        ).toBe(200);
      } finally {
        await third.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('the command with --https --cert-out writes the certificate the server presents', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cosmos-cli-'));
    const certOut = join(dir, 'cert.pem');
    const child = spawn(
      process.execPath,
      [
        fileURLToPath(new URL('../bin/cosmos-emulator.mjs', import.meta.url)),
        '--port',
        '0',
        '--https',
        '--cert-out',
        certOut,
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      const endpoint = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /listening on (https:\/\/\S+)/.exec(out);
          if (match?.[1] !== undefined) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`emulator exited with ${String(code)}: ${out}`)));
      });
      expect(endpoint).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
      const pem = await readFile(certOut, 'utf8');
      expect((await httpsGet(new URL('/_emulator/counters', endpoint).href, pem)).status).toBe(200);
      // A separate process trusts it through NODE_EXTRA_CA_CERTS alone (no agent, no ca option).
      const url = new URL('/_emulator/counters', endpoint).href;
      const probe = `require('node:https').get(${JSON.stringify(url)}, (r) => process.exit(r.statusCode === 200 ? 0 : 2)).on('error', () => process.exit(3))`;
      expect(await exitCode(probe, { NODE_EXTRA_CA_CERTS: certOut })).toBe(0);
      expect(await exitCode(probe, {})).toBe(3);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      if (child.exitCode === null) child.kill('SIGTERM');
      await (child.exitCode === null ? exited : undefined);
      await rm(dir, { recursive: true, force: true });
    }
  }, 20_000);
});
