import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CosmosClient } from '@azure/cosmos';
import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { start as startCosmos, type CosmosEmulator } from '@ledger-convoy/cosmos-emulator';
import { runResubmitRejected } from '../src/dlq/resubmitRejected.js';
import { COSMOS_EMULATOR_KEY, SERVICE_BUS_EMULATOR_KEY } from '../src/emulatorKeys.js';
import type { CliIo } from '../src/io.js';
import { runCli } from '../src/program.js';
import { resolveCliSettings, type CliSettings } from '../src/settings.js';
import { peekEverything, receiveExactly } from '../../../test/support/serviceBusWaits.js';
import { startCliBus, type CliTestBus } from './support.js';

const fixedFor = (orderId: string) => ({
  entryId: `${orderId}-e5`,
  orderId,
  sequence: 5,
  type: 'TransactionAdded',
  data: { transactionId: 't5', amount: 100 },
});
const fixed = fixedFor('o-2');

/**
 * GET /api/orders/o-2 and o-3: a rejected entry at sequence 5 (the view carries no correlationId and no
 * resubmitCount); o-3's record says its entry came from a resubmission numbered 2.
 */
async function fakeOrdersApi(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const orderId = /\/api\/orders\/(o-[23])$/.exec(req.url ?? '')?.[1];
    if (!orderId) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        orderId,
        status: 'open',
        customerId: 'c',
        currency: 'EUR',
        lastSequence: 4,
        total: 0,
        transactions: [],
        parked: [],
        rejected: [{ sequence: 5, entryId: `${orderId}-e5`, reason: 'InvalidTransition' }],
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function captureIo(): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    exitCode: 0,
    out: (t) => stdout.push(t),
    err: (t) => stderr.push(t),
    embeddedStack: nowhere,
  };
}

let api: { url: string; server: Server };
let cosmos: CosmosEmulator;
let bus: CliTestBus;

beforeAll(async () => {
  api = await fakeOrdersApi();
  cosmos = await startCosmos({ port: 0 });
  // The order document in a database and container with other names than the defaults, as COSMOS_* can set them.
  const client = new CosmosClient({
    endpoint: cosmos.endpoint,
    key: cosmos.key,
    connectionPolicy: { enableEndpointDiscovery: false },
  });
  const { database } = await client.databases.createIfNotExists({ id: 'convoy-cli' });
  const { container } = await database.containers.createIfNotExists({
    id: 'orders-cli',
    partitionKey: { paths: ['/orderId'] },
  });
  // Each rejected entry keeps its details in its record (`entry:<consumer>:<entryId>`, status rejected).
  await container.items.create({
    id: 'order',
    docType: 'order',
    orderId: 'o-2',
    lastSequence: 4,
    parked: [],
    state: { status: 'open', customerId: 'c', currency: 'EUR', total: 0, transactionCount: 0 },
    rejected: [
      {
        sequence: 5,
        entryId: 'o-2-e5',
        requestHash: 'b'.repeat(64),
        reason: 'InvalidTransition',
        rejectedAt: '2025-01-01T00:00:00.000Z',
        alerted: true,
      },
    ],
  });
  await container.items.create({
    id: 'entry:order-processor:o-2-e5',
    docType: 'entry',
    status: 'rejected',
    orderId: 'o-2',
    sequence: 5,
    entryId: 'o-2-e5',
    requestHash: 'b'.repeat(64),
    reason: 'InvalidTransition',
    description: 'x',
    rejectedAt: '2025-01-01T00:00:00.000Z',
    entry: fixed,
    correlationId: 'L-original',
  });
  await container.items.create({
    id: 'order',
    docType: 'order',
    orderId: 'o-3',
    lastSequence: 4,
    parked: [],
    state: { status: 'open', customerId: 'c', currency: 'EUR', total: 0, transactionCount: 0 },
    rejected: [
      {
        sequence: 5,
        entryId: 'o-3-e5',
        requestHash: 'a'.repeat(64),
        reason: 'InvalidTransition',
        rejectedAt: '2025-01-01T00:00:00.000Z',
        resubmitCount: 2,
        alerted: true,
      },
    ],
  });
  await container.items.create({
    id: 'entry:order-processor:o-3-e5',
    docType: 'entry',
    status: 'rejected',
    orderId: 'o-3',
    sequence: 5,
    entryId: 'o-3-e5',
    requestHash: 'a'.repeat(64),
    reason: 'InvalidTransition',
    description: 'x',
    rejectedAt: '2025-01-01T00:00:00.000Z',
    entry: fixedFor('o-3'),
    correlationId: 'L-3',
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

/**
 * The embedded stack the CLI falls back to when no Cosmos DB is configured, on a port nothing listens on (the default
 * ports may hold an `npm start` of this machine, whose Cosmos DB would answer).
 */
const nowhere = {
  ServiceBusConnection: `Endpoint=sb://127.0.0.1:9;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${SERVICE_BUS_EMULATOR_KEY};UseDevelopmentEmulator=true;`,
  CosmosConnection: `AccountEndpoint=http://127.0.0.1:9/;AccountKey=${COSMOS_EMULATOR_KEY};`,
};

/** CLI settings for the bus and the fake API, plus `extra` app settings; nothing from the environment or a file. */
function settingsWith(extra: Record<string, string>): CliSettings {
  return resolveCliSettings(
    { servicebus: bus.emulator.connectionString, http: api.url },
    extra,
    mkdtempSync(join(tmpdir(), 'convoy-rr-')),
    nowhere,
  );
}

/** The next message on the order's session, completed — or dead-lettered, as the processor does with an invalid one. */
async function receiveCorrection(
  orderId = 'o-2',
  settle: 'complete' | 'deadLetter' = 'complete',
): Promise<ServiceBusReceivedMessage> {
  const receiver = await bus.client.acceptSession('orders', orderId);
  try {
    const [message] = (await receiveExactly(receiver, 1, `corrections on ${orderId}`)) as [ServiceBusReceivedMessage];
    if (settle === 'complete') await receiver.completeMessage(message);
    else
      await receiver.deadLetterMessage(message, {
        deadLetterReason: 'InvalidTransition',
        deadLetterErrorDescription: 'test: still invalid',
      });
    return message;
  } finally {
    await receiver.close();
  }
}

/** Whether the session holds nothing, locked or not (peeked from its first sequence number, which takes no lock). */
async function sessionIsEmpty(orderId: string): Promise<boolean> {
  const receiver = await bus.client.acceptSession('orders', orderId);
  try {
    return (await peekEverything(receiver)).length === 0;
  } finally {
    await receiver.close();
  }
}

const cosmosSettings = () =>
  settingsWith({
    CosmosConnection: cosmos.connectionString,
    COSMOS_DATABASE: 'convoy-cli',
    COSMOS_CONTAINER: 'orders-cli',
  });

describe('resubmitting a rejected entry (rule 11) with its correlationId (rule 10)', () => {
  it("numbers the correction 1 + the rejected record's resubmitCount, or its dead letters' when higher (rule 10)", async () => {
    // Act: o-3's record keeps 2, and its ledger id is in its rejected document.
    const first = await runResubmitRejected({
      settings: cosmosSettings(),
      orderId: 'o-3',
      sequence: 5,
      correct: () => fixedFor('o-3'),
    });
    // That correction was still invalid: the processor dead-lettered it, with its resubmitCount 3.
    const sent = await receiveCorrection('o-3', 'deadLetter');
    const second = await runResubmitRejected({
      settings: cosmosSettings(),
      orderId: 'o-3',
      sequence: 5,
      correct: () => fixedFor('o-3'),
    });
    const secondSent = await receiveCorrection('o-3');
    // Assess
    expect(first).toMatchObject({ messageId: 'o-3-e5.r3', correlationId: 'L-3' });
    expect(sent).toMatchObject({
      messageId: 'o-3-e5.r3',
      applicationProperties: { sequence: 5, type: 'TransactionAdded', resubmitCount: 3 },
    });
    expect(second.messageId).toBe('o-3-e5.r4');
    expect(secondSent).toMatchObject({ messageId: 'o-3-e5.r4', applicationProperties: { resubmitCount: 4 } });
  });

  it('sends a second correction of the same entry as .r2, which duplicate detection lets through, and prints what it sent', async () => {
    // Prepare: the first correction went out as .r1 and was dead-lettered (still invalid); the broker remembers .r1.
    const dir = mkdtempSync(join(tmpdir(), 'convoy-rr-twice-'));
    writeFileSync(join(dir, 'fixed.json'), JSON.stringify(fixed));
    const args = [
      'dlq',
      'resubmit',
      '--order',
      'o-2',
      '--sequence',
      '5',
      '--body',
      join(dir, 'fixed.json'),
      '--servicebus',
      bus.emulator.connectionString,
      '--http',
      api.url,
      '--cosmos',
      cosmos.connectionString,
    ];
    const saved = { database: process.env.COSMOS_DATABASE, container: process.env.COSMOS_CONTAINER };
    process.env.COSMOS_DATABASE = 'convoy-cli';
    process.env.COSMOS_CONTAINER = 'orders-cli';
    try {
      const once = captureIo();
      expect(await runCli(args, once), once.stderr.join('\n')).toBe(0);
      const first = await receiveCorrection('o-2', 'deadLetter');
      // Act
      const twice = captureIo();
      const code = await runCli(args, twice);
      // Assess: printed ids are the ones that arrived.
      expect(code, twice.stderr.join('\n')).toBe(0);
      expect(once.stdout).toEqual([
        `resubmitted o-2-e5 to session o-2 as ${String(first.messageId)} (correlationId L-original)`,
      ]);
      expect(first.messageId).toBe('o-2-e5.r1');
      const second = await receiveCorrection('o-2');
      expect(twice.stdout).toEqual([
        `resubmitted o-2-e5 to session o-2 as ${String(second.messageId)} (correlationId L-original)`,
      ]);
      expect(second).toMatchObject({
        messageId: 'o-2-e5.r2',
        body: fixed,
        applicationProperties: { resubmitCount: 2 },
      });
      // The premise: inside the window the broker drops another .r1, as it did the second correction before rule 10's numbering.
      const sender = bus.client.createSender('orders');
      await sender.sendMessages({ messageId: 'o-2-e5.r1', sessionId: 'o-2', body: fixed });
      await sender.close();
      expect(await sessionIsEmpty('o-2')).toBe(true);
    } finally {
      for (const [key, value] of [
        ['COSMOS_DATABASE', saved.database],
        ['COSMOS_CONTAINER', saved.container],
      ] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });

  it('refuses, sending nothing, a correction that changes the entryId or the sequence', async () => {
    for (const changed of [
      { ...fixed, entryId: 'o-2-e5-fixed' },
      { ...fixed, sequence: 6 },
    ]) {
      await expect(
        runResubmitRejected({ settings: cosmosSettings(), orderId: 'o-2', sequence: 5, correct: () => changed }),
      ).rejects.toMatchObject({
        code: 'InvalidOption',
        message: expect.stringMatching(
          /^The corrected entry must keep (entryId o-2-e5 \(not o-2-e5-fixed\)|sequence 5 \(not 6\))\.$/,
        ),
      });
    }
    expect(await sessionIsEmpty('o-2')).toBe(true);
  });

  it('refuses, sending nothing, when the order document cannot be read to number the correction and no --attempt is given', async () => {
    await expect(
      runResubmitRejected({ settings: settingsWith({}), orderId: 'o-2', sequence: 5, correct: () => fixed }),
    ).rejects.toMatchObject({
      code: 'InvalidOption',
      message: expect.stringContaining('Cannot number the correction of o-2-e5'),
      hint: expect.stringContaining('--attempt <n>'),
    });
    expect(await sessionIsEmpty('o-2')).toBe(true);
  });

  it('takes --correlation-id over the stored one, and sends none (the caller warns) without either', async () => {
    const given = await runResubmitRejected({
      settings: settingsWith({
        CosmosConnection: cosmos.connectionString,
        COSMOS_DATABASE: 'convoy-cli',
        COSMOS_CONTAINER: 'orders-cli',
      }),
      orderId: 'o-2',
      sequence: 5,
      correct: () => fixed,
      correlationId: 'L-given',
    });
    expect(given.correlationId).toBe('L-given');
    expect((await receiveCorrection()).correlationId).toBe('L-given');
    const none = await runResubmitRejected({
      settings: settingsWith({}),
      orderId: 'o-2',
      sequence: 5,
      attempt: 2,
      correct: () => fixed,
    });
    expect(none.correlationId).toBeUndefined();
    expect((await receiveCorrection()).correlationId).toBeUndefined();
  });

  it('fails before sending when the configured Cosmos DB account cannot be read', async () => {
    // Nothing listens on port 9 of this machine: the connection is refused at once.
    const settings = settingsWith({ CosmosConnection: cosmos.connectionString.replace(/:\d+\//, ':9/') });
    await expect(
      runResubmitRejected({ settings, orderId: 'o-2', sequence: 5, correct: () => fixed }),
    ).rejects.toMatchObject({
      code: 'Cosmos',
      hint: expect.stringContaining('--correlation-id'),
    });
    const peeker = bus.client.createReceiver('orders');
    expect(await peekEverything(peeker)).toEqual([]);
    await peeker.close();
  });

  it('warns on the command line when the correction goes out without a correlationId', async () => {
    // Prepare: a settings file with no Cosmos connection, and none in the environment; --attempt says n instead.
    const dir = mkdtempSync(join(tmpdir(), 'convoy-rr-cli-'));
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ Values: {} }));
    writeFileSync(join(dir, 'fixed.json'), JSON.stringify(fixed));
    const saved = {
      CosmosConnection: process.env.CosmosConnection,
      endpoint: process.env.CosmosConnection__accountEndpoint,
    };
    delete process.env.CosmosConnection;
    delete process.env.CosmosConnection__accountEndpoint;
    const io = captureIo();
    try {
      // Act
      const code = await runCli(
        [
          'dlq',
          'resubmit',
          '--order',
          'o-2',
          '--sequence',
          '5',
          '--attempt',
          '1',
          '--body',
          join(dir, 'fixed.json'),
          '--servicebus',
          bus.emulator.connectionString,
          '--http',
          api.url,
          '--settings',
          join(dir, 'settings.json'),
        ],
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
