import { request } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { masterKeyAuth, startHarness } from './harness.js';
import type { Harness } from './harness.js';

const LATENCY_MS = 150;

/** GET of the database feed on a connection of its own; resolves with the status once the response has ended. */
function listDatabases(h: Harness): Promise<number> {
  const date = new Date().toUTCString();
  const headers = {
    'x-ms-date': date,
    'x-ms-version': '2020-07-15',
    authorization: masterKeyAuth(h.emulator.key, 'GET', 'dbs', '', date),
  };
  return get(h.emulator.port, '/dbs', headers);
}

/** GET on a connection of its own (no keep-alive); resolves with the status once the response has ended. */
function get(port: number, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', agent: false, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Resolves once `done` holds, checking on each turn of the event loop (no timers: they may be fake). */
function until(done: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => (done() ? resolve() : void setImmediate(check));
    check();
  });
}

describe('the emulator with --latency', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ latencyMs: LATENCY_MS });
  });
  afterAll(async () => {
    await h.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers the SDK no earlier than the latency after each request', async () => {
    // Prepare
    const db = await h.database();
    const container = (await db.containers.createIfNotExists({ id: 'latency', partitionKey: { paths: ['/pk'] } }))
      .container;
    // Act
    const started = performance.now();
    await container.items.create({ id: 'a', pk: 'p' });
    const create = performance.now() - started;
    const readStarted = performance.now();
    const { resource } = await container.item('a', 'p').read();
    const read = performance.now() - readStarted;
    // Assess
    expect(resource?.id).toBe('a');
    expect(create).toBeGreaterThanOrEqual(LATENCY_MS);
    expect(read).toBeGreaterThanOrEqual(LATENCY_MS);
  });

  it("holds each connection's response on a timer of its own: requests that arrived together are all answered one latency later", async () => {
    // Prepare: the clock is fake, so the responses go out only when it is moved on.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const before = h.emulator.counters().total;
    const answered: number[] = [];
    // Act: three requests on three connections, held until the server has handled them all.
    for (let i = 0; i < 3; i++) void listDatabases(h).then((status) => answered.push(status));
    await until(() => h.emulator.counters().total - before >= 3);
    // Assess: nothing before the latency; all three once it (and the jitter) has passed, not one latency each.
    await vi.advanceTimersByTimeAsync(LATENCY_MS - 1);
    expect(answered).toEqual([]);
    await vi.advanceTimersByTimeAsync(LATENCY_MS * 0.1 + 1);
    vi.useRealTimers();
    await until(() => answered.length === 3);
    expect(answered).toEqual([200, 200, 200]);
  });

  it('answers its own routes at once', async () => {
    // Prepare
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    // Act: with the clock stopped, only a response that does not wait can arrive.
    const status = await get(h.emulator.port, '/_emulator/counters');
    // Assess
    expect(status).toBe(200);
  });
});
