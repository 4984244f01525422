import functions from '@azure/functions';
import type { HttpResponseInit } from '@azure/functions';
import { ServiceBusClient, isServiceBusError } from '@azure/service-bus';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start as startServiceBus } from '@ledger-convoy/servicebus-emulator';
import type { RunningEmulator } from '@ledger-convoy/servicebus-emulator';
import { uid } from '../integration/support/ledgers.js';
import { invocation, invokeWith, startStack, testServiceBusConfig } from '../integration/support/stack.js';
import type { Stack } from '../integration/support/stack.js';
import { acceptedLedger, httpCases } from './cases/httpCases.js';
import type { HttpCase } from './cases/httpCases.js';
import { ledgerQueueCases } from './cases/ledgerQueueCases.js';
import { DeadLetterPool } from './support/deadLetterPool.js';
import { added, created } from './support/entries.js';
import { asObject, asText, sendRaw, toAmqp } from './support/rawMessages.js';
import type { RawBody } from './support/rawMessages.js';
import { peekOrders, splitNext } from './support/runs.js';
import { peekEverything, receiveExactly } from '../support/serviceBusWaits.js';

// CommonJS bundle: only app/trigger/output import by name in native ESM (docs/platform.md).
const { HttpRequest } = functions;

let stack: Stack;
let pool: DeadLetterPool;

beforeAll(async () => {
  stack = await startStack();
  pool = new DeadLetterPool(stack.bus, 'ledger');
});

afterAll(async () => {
  await pool?.close();
  await stack?.close();
});

async function post(body: string | Uint8Array, headers: Record<string, string> = {}): Promise<HttpResponseInit> {
  const init = typeof body === 'string' ? { string: body } : { bytes: body };
  const request = new HttpRequest({ method: 'POST', url: 'http://localhost/api/ledgers', body: init, headers });
  return (await stack.handlers.postLedger(request, invocation('postLedger'))) as HttpResponseInit;
}

async function peekLedgerIds(): Promise<string[]> {
  const peeker = stack.bus.createReceiver('ledger');
  try {
    return (await peekEverything(peeker)).map((m) => String(m.messageId));
  } finally {
    await peeker.close();
  }
}

const shapeOf = (body: unknown) => (Buffer.isBuffer(body) ? 'bytes' : typeof body === 'string' ? 'text' : 'object');

describe('bad-input corpus: POST /api/ledgers', () => {
  it.each(httpCases.map((c) => [c.name, c] as const))('%s', async (_name, testCase: HttpCase) => {
    // Act
    const answer = await post(testCase.body, testCase.headers);
    // Assess
    expect(answer.status).toBe(testCase.expect.status);
    if (testCase.expect.status === 400) {
      const body = answer.jsonBody as { error: string; issues: { path: string; message: string }[] };
      expect(body.error).toBe('SchemaValidationFailed');
      // Several issues may share a path (a negative sequence is too small and also goes back); the set must match.
      expect([...new Set(body.issues.map((i) => i.path))]).toEqual(testCase.expect.paths);
      for (const issue of body.issues) expect(issue.message).toMatch(/\w{3}/);
    }
  });

  it('accepts the control ledger, and nothing else reached the ledger queue', async () => {
    // Prepare
    const ledgerId = uid('L');
    const orderId = uid('o');
    // Act
    const answer = await post(acceptedLedger(ledgerId, orderId));
    const queued = await peekLedgerIds();
    const split = await splitNext(stack);
    // Assess
    expect(answer).toMatchObject({ status: 202, jsonBody: { ledgerId, entries: 2 } });
    expect(queued).toEqual([ledgerId]);
    expect(split.settled).toEqual([{ action: 'complete', messageId: ledgerId }]);
  });
});

describe('bad-input corpus: ledger messages on the ledger queue', () => {
  it.each(ledgerQueueCases.map((c) => [c.name, c] as const))('%s', async (_name, testCase) => {
    // Prepare
    const ledgerId = uid('L');
    const orderId = uid('o');
    const body: RawBody = testCase.body(ledgerId, orderId);
    await sendRaw(stack.bus, 'ledger', [{ messageId: ledgerId, body }]);
    // Act
    const handled = await splitNext(stack);
    const fanned = (await peekOrders(stack)).filter((m) => m.sessionId === orderId);
    // Assess: handled on its first delivery, in the shape it was sent, settled once.
    expect([handled.messageId, handled.deliveryCount, shapeOf(handled.body)]).toEqual([ledgerId, 0, body.as]);
    if ('fannedOut' in testCase.expect) {
      expect(handled.settled).toEqual([{ action: 'complete', messageId: ledgerId }]);
      expect(fanned.map((m) => [m.messageId, m.correlationId])).toEqual(
        Array.from({ length: testCase.expect.fannedOut }, (_, i) => [
          expect.stringMatching(new RegExp(`^${orderId}-${i + 1}:[0-9a-f]{16}$`)),
          ledgerId,
        ]),
      );
      return;
    }
    const { reason, description } = testCase.expect;
    expect(handled.settled).toMatchObject([{ action: 'deadletter', messageId: ledgerId, reason }]);
    const letter = await pool.claim(ledgerId);
    expect(letter).toBeDefined();
    expect(letter!.deadLetterReason).toBe(reason);
    expect(letter!.deadLetterErrorDescription).toMatch(description);
    // Read from the queue's own dead-letter queue: no DeadLetterSource (Service Bus sets it on auto-forwarded ones only).
    expect([letter!.deadLetterSource, letter!.deliveryCount]).toEqual([undefined, 1]);
    expect(fanned).toEqual([]);
  });

  it('has the broker refuse a ledger message over 256 KB, with a clear error, before any splitter sees it', async () => {
    // Prepare
    const ledgerId = uid('L');
    const big = { ledgerId, entries: [created(uid('o'))], pad: 'x'.repeat(262_144) };
    const sender = stack.bus.createSender('ledger');
    // Act
    const sent = sender.sendMessages(toAmqp({ messageId: ledgerId, body: asObject(big) }));
    // Assess
    const error: unknown = await sent.then(
      () => undefined,
      (e: unknown) => e,
    );
    await sender.close();
    expect(isServiceBusError(error) && error.code).toBe('MessageSizeExceeded');
    expect((error as Error).message).toMatch(/exceeds the limit \(262144 bytes\)/);
    expect(await peekLedgerIds()).toEqual([]);
  });

  it('leaves nothing unexplained in the ledger dead-letter queue', async () => {
    expect((await pool.rest()).map((m) => [m.messageId, m.deadLetterReason])).toEqual([]);
  });
});

describe('bad-input corpus: an oversize ledger that reaches a queue with a larger size limit', () => {
  let premium: RunningEmulator;
  let client: ServiceBusClient;

  beforeAll(async () => {
    // As on the Premium tier: the ledger queue takes messages up to 1 MB, so the splitter's own limit must hold.
    const [namespace] = testServiceBusConfig.UserConfig.Namespaces;
    const queues = namespace!.Queues.map((q) =>
      q.Name === 'ledger' ? { ...q, Properties: { ...q.Properties, MaxMessageSizeInKilobytes: 1024 } } : q,
    );
    premium = await startServiceBus({
      port: 0,
      adminPort: 0,
      config: { UserConfig: { ...testServiceBusConfig.UserConfig, Namespaces: [{ ...namespace!, Queues: queues }] } },
    });
    client = new ServiceBusClient(premium.connectionString, { retryOptions: { maxRetries: 0, timeoutInMs: 10_000 } });
  });

  afterAll(async () => {
    await client?.close();
    await premium?.close();
  });

  it.each([
    [
      'a body over 262,144 bytes',
      (l: string, o: string) => asObject({ ledgerId: l, entries: [created(o)], pad: 'x'.repeat(262_144) }),
    ],
    [
      'a ledger of 5,001 entries',
      (l: string, o: string) =>
        asText(
          JSON.stringify({
            ledgerId: l,
            entries: Array.from({ length: 5_001 }, (_, i) => added(o, i + 2, `t-${i}`, i)),
          }),
        ),
    ],
  ] as const)('dead-letters %s whole as SchemaValidationFailed and fans nothing out', async (_name, build) => {
    // Prepare
    const ledgerId = uid('L');
    const orderId = uid('o');
    await sendRaw(client, 'ledger', [{ messageId: ledgerId, body: build(ledgerId, orderId) }]);
    const receiver = client.createReceiver('ledger', { skipParsingBodyAsJson: true });
    const dlq = client.createReceiver('ledger', { subQueueType: 'deadLetter' });
    try {
      const [message] = await receiveExactly(receiver, 1);
      // Act
      const run = await invokeWith(stack.handlers.ledgerSplitter, 'ledgerSplitter', receiver, message!);
      const [letter] = await receiveExactly(dlq, 1);
      // Assess
      expect(message!.deliveryCount).toBe(0);
      expect(run.settled).toMatchObject([
        { action: 'deadletter', messageId: ledgerId, reason: 'SchemaValidationFailed' },
      ]);
      expect(letter).toMatchObject({
        messageId: ledgerId,
        deadLetterReason: 'SchemaValidationFailed',
        deliveryCount: 1,
      });
      expect(letter!.deadLetterErrorDescription).toMatch(/^The ledger is \d{6,} bytes; at most 262144 are accepted$/);
      await dlq.completeMessage(letter!);
      expect((await peekOrders(stack)).filter((m) => m.sessionId === orderId)).toEqual([]);
    } finally {
      await receiver.close();
      await dlq.close();
    }
  });
});
