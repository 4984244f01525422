import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CosmosClient } from '@azure/cosmos';
import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { start as startCosmos, type CosmosEmulator } from '../../emulators/cosmos/index.js';
import { runResubmitRejected } from '../../cli/dlq/resubmitRejected.js';
import type { CliIo } from '../../cli/io.js';
import { runCli } from '../../cli/program.js';
import { resolveCliSettings, type CliSettings } from '../../cli/settings.js';
import { startCliBus, type CliTestBus } from './support.js';

const fixed = { entryId: 'o-2-e5', orderId: 'o-2', sequence: 5, type: 'TransactionAdded', data: { transactionId: 't5', amount: 100 } };

/** GET /api/orders/o-2: a rejected entry at sequence 5 (the view carries no correlationId). */
async function fakeOrdersApi(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if (!(req.url ?? '').endsWith('/api/orders/o-2')) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        orderId: 'o-2', status: 'open', customerId: 'c', currency: 'EUR', lastSequence: 4, total: 0, transactions: [], parked: [],
        rejected: [{ sequence: 5, entryId: 'o-2-e5', reason: 'InvalidTransition' }],
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function captureIo(): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, exitCode: 0, out: (t) => stdout.push(t), err: (t) => stderr.push(t) };
}

let api: { url: string; server: Server };
let cosmos: CosmosEmulator;
let bus: CliTestBus;

beforeAll(async () => {
  api = await fakeOrdersApi();
  cosmos = await startCosmos({ port: 0 });
  // The order document in a database and container with other names than the defaults, as COSMOS_* can set them.
  const client = new CosmosClient({ endpoint: cosmos.endpoint, key: cosmos.key, connectionPolicy: { enableEndpointDiscovery: false } });
  const { database } = await client.databases.createIfNotExists({ id: 'convoy-cli' });
  const { container } = await database.containers.createIfNotExists({ id: 'orders-cli', partitionKey: { paths: ['/orderId'] } });
  await container.items.create({
    id: 'order', docType: 'order', orderId: 'o-2', lastSequence: 4, parked: [],
    rejected: [{ sequence: 5, entryId: 'o-2-e5', reason: 'InvalidTransition', description: 'x', correlationId: 'L-original', entry: fixed }],
  });
  client.dispose();
});

afterAll(async () => {
  api?.server.close();
  await cosmos?.close();
});

beforeEach(async () => {
  bus = await startCliBus(api.url);
});

afterEach(async () => bus.close());

/** CLI settings for the bus and the fake API, plus `extra` app settings; nothing from the environment or a file. */
function settingsWith(extra: Record<string, string>): CliSettings {
  return resolveCliSettings({ servicebus: bus.emulator.connectionString, http: api.url }, extra, mkdtempSync(join(tmpdir(), 'convoy-rr-')));
}

async function receiveCorrection(): Promise<ServiceBusReceivedMessage> {
  const receiver = await bus.client.acceptSession('orders', 'o-2');
  try {
    const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2_000 });
    if (!message) throw new Error('no correction arrived');
    await receiver.completeMessage(message);
    return message;
  } finally {
    await receiver.close();
  }
}

describe('resubmitting a rejected entry (rule 11) with its correlationId (rule 10)', () => {
  it("reads the ledger id from the order's rejected record in Cosmos DB, in the COSMOS_DATABASE / COSMOS_CONTAINER names", async () => {
    // Prepare
    const settings = settingsWith({ CosmosConnection: cosmos.connectionString, COSMOS_DATABASE: 'convoy-cli', COSMOS_CONTAINER: 'orders-cli' });
    // Act
    const done = await runResubmitRejected({ settings, orderId: 'o-2', sequence: 5, correct: () => fixed });
    const copy = await receiveCorrection();
    // Assess
    expect(done).toMatchObject({ messageId: 'o-2-e5.r1', correlationId: 'L-original' });
    expect(copy).toMatchObject({ messageId: 'o-2-e5.r1', correlationId: 'L-original', body: fixed });
  });

  it('takes --correlation-id over the stored one, and sends none (the caller warns) without either', async () => {
    const given = await runResubmitRejected({
      settings: settingsWith({ CosmosConnection: cosmos.connectionString, COSMOS_DATABASE: 'convoy-cli', COSMOS_CONTAINER: 'orders-cli' }),
      orderId: 'o-2', sequence: 5, correct: () => fixed, correlationId: 'L-given',
    });
    expect(given.correlationId).toBe('L-given');
    expect((await receiveCorrection()).correlationId).toBe('L-given');
    const none = await runResubmitRejected({ settings: settingsWith({}), orderId: 'o-2', sequence: 5, attempt: 2, correct: () => fixed });
    expect(none.correlationId).toBeUndefined();
    expect((await receiveCorrection()).correlationId).toBeUndefined();
  });

  it('fails before sending when the configured Cosmos DB account cannot be read', async () => {
    // Nothing listens on port 9 of this machine: the connection is refused at once.
    const settings = settingsWith({ CosmosConnection: cosmos.connectionString.replace(/:\d+\//, ':9/') });
    await expect(runResubmitRejected({ settings, orderId: 'o-2', sequence: 5, correct: () => fixed })).rejects.toMatchObject({
      code: 'Cosmos',
      hint: expect.stringContaining('--correlation-id'),
    });
    const peeker = bus.client.createReceiver('orders');
    expect(await peeker.peekMessages(5)).toEqual([]);
    await peeker.close();
  });

  it('warns on the command line when the correction goes out without a correlationId', async () => {
    // Prepare: a settings file with no Cosmos connection, and none in the environment.
    const dir = mkdtempSync(join(tmpdir(), 'convoy-rr-cli-'));
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ Values: {} }));
    writeFileSync(join(dir, 'fixed.json'), JSON.stringify(fixed));
    const saved = { CosmosConnection: process.env.CosmosConnection, endpoint: process.env.CosmosConnection__accountEndpoint };
    delete process.env.CosmosConnection;
    delete process.env.CosmosConnection__accountEndpoint;
    const io = captureIo();
    try {
      // Act
      const code = await runCli(
        ['dlq', 'resubmit', '--order', 'o-2', '--sequence', '5', '--body', join(dir, 'fixed.json'), '--servicebus', bus.emulator.connectionString, '--http', api.url, '--settings', join(dir, 'settings.json')],
        io,
      );
      // Assess
      expect(code).toBe(0);
      expect(io.stdout.join('\n')).toContain('as o-2-e5.r1');
      expect(io.stderr.join('\n')).toMatch(/warning: sent without a correlationId.*--correlation-id/);
    } finally {
      if (saved.CosmosConnection !== undefined) process.env.CosmosConnection = saved.CosmosConnection;
      if (saved.endpoint !== undefined) process.env.CosmosConnection__accountEndpoint = saved.endpoint;
    }
  });
});
