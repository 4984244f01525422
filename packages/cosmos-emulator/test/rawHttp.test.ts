import type { Container } from '@azure/cosmos';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, startHarness } from './harness.js';
import type { Harness } from './harness.js';

let h: Harness;
let orders: Container;
let docsPath: string;

beforeAll(async () => {
  h = await startHarness();
  orders = await h.container();
  docsPath = `/${orders.url.replace(/^\//, '')}/docs`;
});
afterAll(async () => {
  await h.close();
});

function sendGarbage(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString()));
    socket.on('close', () => resolve(data));
    socket.on('error', reject);
  });
}

describe('bad input over raw HTTP', () => {
  it('answers 400 with a Cosmos-shaped body for malformed JSON', async () => {
    const res = await rawRequest(h.emulator, 'POST', docsPath, {
      body: '{"id": "a", ',
      headers: { 'x-ms-documentdb-partitionkey': '["p"]' },
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe('BadRequest');
    expect(body.message).toMatch(/invalid/i);
    expect(res.headers.get('x-ms-substatus')).toBe('0');
  });

  it('answers 400 when the partition key header is missing or does not match the document', async () => {
    const missing = await rawRequest(h.emulator, 'POST', docsPath, { body: JSON.stringify({ id: 'a', orderId: 'p' }) });
    expect(missing.status).toBe(400);
    const mismatched = await rawRequest(h.emulator, 'POST', docsPath, {
      body: JSON.stringify({ id: 'a', orderId: 'p' }),
      headers: { 'x-ms-documentdb-partitionkey': '["q"]' },
    });
    expect(mismatched.status).toBe(400);
    expect(mismatched.headers.get('x-ms-substatus')).toBe('1001');
  });

  it('answers 401 for a wrong key, a tampered signature or no authorization', async () => {
    const wrongKey = await rawRequest(h.emulator, 'GET', '/dbs', {
      key: Buffer.from('not the key').toString('base64'),
    });
    expect(wrongKey.status).toBe(401);
    expect(((await wrongKey.json()) as { code: string }).code).toBe('Unauthorized');
    const signedForOtherPath = await rawRequest(h.emulator, 'GET', '/dbs', {
      headers: { authorization: 'type%3Dmaster%26ver%3D1.0%26sig%3DAAAA' },
    });
    expect(signedForOtherPath.status).toBe(401);
    const none = await fetch(`${h.emulator.endpoint}dbs`);
    expect(none.status).toBe(401);
  });

  it('refuses oversized requests with 413 without buffering them', async () => {
    const res = await rawRequest(h.emulator, 'POST', docsPath, {
      body: Buffer.alloc(5 * 1024 * 1024, 0x20),
      headers: { 'x-ms-documentdb-partitionkey': '["p"]' },
    });
    expect(res.status).toBe(413);
  });

  it('answers garbage on the socket with 400 and keeps serving', async () => {
    const reply = await sendGarbage(h.emulator.port, '\u0000\u0001NOT HTTP AT ALL\r\n\r\n');
    expect(reply).toMatch(/^HTTP\/1\.1 400/);
    const { resource } = await orders.items.create({ id: 'still-alive', orderId: 'p' });
    expect(resource?.id).toBe('still-alive');
  });

  it('answers 404 for unknown databases, containers and paths', async () => {
    expect((await rawRequest(h.emulator, 'GET', '/dbs/nope')).status).toBe(404);
    expect(
      (
        await rawRequest(h.emulator, 'GET', '/dbs/nope/colls/x/docs/y', {
          headers: { 'x-ms-documentdb-partitionkey': '["p"]' },
        })
      ).status,
    ).toBe(404);
  });
});
