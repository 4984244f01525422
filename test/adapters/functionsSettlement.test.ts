import * as grpc from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DeadLetterReason } from '../../src/core/deadLetterReasons.js';
import { createRequire } from 'node:module';
import { isFunctionsAdapterError } from '../../src/adapters/functionsAdapterError.js';
import { normaliseTriggerInput, settlementFor } from '../../src/adapters/functionsSettlement.js';
import type { FunctionsTriggerInput } from '../../src/adapters/functionsSettlement.js';
import {
  ensureServiceBusSdkBinding,
  functionsResourceFactoryResolver,
  serviceBusSdkBindingSource,
} from '../../src/adapters/functionsServiceBusExtension.js';
import { startFakeSettlementServer } from './fakeSettlementServer.js';
import type { FakeSettlementServer } from './fakeSettlementServer.js';
import { hostModelBindingData } from './hostModelBindingData.js';
import type { HostMessage } from './hostModelBindingData.js';

let host: FakeSettlementServer;
const originalArgv = process.argv;

beforeAll(async () => {
  host = await startFakeSettlementServer();
  // The extension finds the host's gRPC endpoint exactly as in a worker process: from argv, parsed with minimist,
  // when it first builds its (singleton) actions client.
  process.argv = [
    ...originalArgv.slice(0, 2),
    '--host',
    '127.0.0.1',
    '--port',
    String(host.port),
    '--functions-grpc-max-message-length',
    String(4 * 1024 * 1024),
  ];
});

afterAll(async () => {
  process.argv = originalArgv;
  await host.close();
});

function hostMessage(overrides: Partial<HostMessage> = {}): HostMessage {
  return {
    lockToken: randomUUID(),
    messageId: 'e-1:0123456789abcdef',
    sessionId: 'order-1',
    contentType: 'application/json',
    body: Buffer.from(JSON.stringify({ entryId: 'e-1', amount: 1250 })),
    applicationProperties: { sequence: 1, type: 'OrderCreated' },
    ...overrides,
  };
}

/** What `@azure/functions` hands the handler: the extension's factory applied to the host's binding data. */
function triggerArgument(...messages: HostMessage[]): unknown {
  const data = messages.map(hostModelBindingData);
  const payload = data.length === 1 ? data[0] : data;
  return functionsResourceFactoryResolver().createClient(serviceBusSdkBindingSource, payload);
}

function deliver(overrides: Partial<HostMessage> = {}): FunctionsTriggerInput & { lockToken: string } {
  const message = hostMessage(overrides);
  return { ...normaliseTriggerInput(triggerArgument(message)), lockToken: message.lockToken };
}

function callsFor(lockToken: string) {
  return host.calls.filter((call) => call.request['locktoken'] === lockToken);
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<unknown> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isFunctionsAdapterError(error) ? error.code : error).toBe(code);
  return error;
}

describe('the installed extension', () => {
  it('is the version whose defects the adapter works around, registered where @azure/functions looks', () => {
    // The version whose wire quirks functionsSettlement.ts works around.
    const manifest = createRequire(import.meta.url)('@azure/functions-extensions-servicebus/package.json') as {
      version: string;
    };
    expect(manifest.version).toBe('0.2.0-preview');
    expect(() => ensureServiceBusSdkBinding()).not.toThrow();
  });
});

describe('normaliseTriggerInput', () => {
  it('decodes the lock token and gives a JSON body as an object', () => {
    const input = deliver();
    expect(input.message.lockToken).toBe(input.lockToken);
    expect(input.message.sessionId).toBe('order-1');
    expect(input.message.applicationProperties).toEqual({ sequence: 1, type: 'OrderCreated' });
    expect(input.body).toEqual({ entryId: 'e-1', amount: 1250 });
  });

  it('gives a string when the content type is not JSON or the JSON is bad', () => {
    expect(deliver({ contentType: undefined }).body).toBe('{"entryId":"e-1","amount":1250}');
    expect(deliver({ body: Buffer.from('{"entryId":') }).body).toBe('{"entryId":');
  });

  it('passes AMQP value bodies through as decoded: binary as bytes, maps as objects', () => {
    const bytes = deliver({ valueBody: Buffer.from([1, 2, 3]) }).body;
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect([...(bytes as Uint8Array)]).toEqual([1, 2, 3]);
    expect(deliver({ valueBody: { entryId: 'e-2' } }).body).toEqual({ entryId: 'e-2' });
  });

  it('accepts cardinality many with one message and refuses several or none', () => {
    const one = hostMessage();
    const many = functionsResourceFactoryResolver().createClient(serviceBusSdkBindingSource, [
      hostModelBindingData(one),
    ]);
    expect(normaliseTriggerInput(many).message.lockToken).toBe(one.lockToken);
    const error = normaliseCode(triggerArgument(hostMessage(), hostMessage()));
    expect(error).toBe('InvalidTriggerInput');
    expect(normaliseCode({ messages: [], actions: {} })).toBe('InvalidTriggerInput');
  });

  it('refuses a plain message (trigger registered without sdkBinding)', () => {
    expect(normaliseCode({ body: {}, messageId: 'm' })).toBe('InvalidTriggerInput');
    expect(normaliseCode('text body')).toBe('InvalidTriggerInput');
  });
});

function normaliseCode(input: unknown): unknown {
  try {
    normaliseTriggerInput(input);
    return 'accepted';
  } catch (error) {
    return isFunctionsAdapterError(error) ? error.code : error;
  }
}

describe('settlementFor against the fake host', () => {
  it('completes with the message lock token', async () => {
    const { actions, message, lockToken } = deliver();
    await settlementFor(actions, message).complete();
    expect(callsFor(lockToken)).toEqual([{ method: 'Complete', request: { locktoken: lockToken } }]);
  });

  it('abandons with no property changes', async () => {
    const { actions, message, lockToken } = deliver();
    await settlementFor(actions, message).abandon();
    expect(callsFor(lockToken)).toEqual([
      { method: 'Abandon', request: { locktoken: lockToken, propertiesToModify: Buffer.alloc(0) } },
    ]);
  });

  it('dead-letters with reason and description as StringValue', async () => {
    const { actions, message, lockToken } = deliver();
    await settlementFor(actions, message).deadLetter(DeadLetterReason.IdempotencyKeyConflict, 'hash differs');
    expect(callsFor(lockToken)).toEqual([
      {
        method: 'Deadletter',
        request: {
          locktoken: lockToken,
          propertiesToModify: Buffer.alloc(0),
          deadletterReason: { value: 'IdempotencyKeyConflict' },
          deadletterErrorDescription: { value: 'hash differs' },
        },
      },
    ]);
  });

  it('needs the workaround: the package refuses plain-string reasons (bug 2)', async () => {
    const { actions, message, lockToken } = deliver();
    const raw = actions.deadletter as (...args: unknown[]) => Promise<void>;
    const silence = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await expect(raw.call(actions, message, undefined, 'IdempotencyKeyConflict', 'd')).rejects.toThrow(
      /object expected/,
    );
    silence.mockRestore();
    expect(callsFor(lockToken)).toEqual([]);
  });

  it('refuses a second settlement, after or during the first, without calling the host', async () => {
    const first = deliver();
    const settlement = settlementFor(first.actions, first.message);
    await settlement.complete();
    const error = await expectCode(
      settlement.deadLetter(DeadLetterReason.InvalidTransition, 'x'),
      'MessageAlreadySettled',
    );
    expect(String(error)).toMatch(/already settled \(complete\)/);
    await expectCode(settlement.complete(), 'MessageAlreadySettled');
    expect(callsFor(first.lockToken).map((call) => call.method)).toEqual(['Complete']);

    const second = deliver();
    const concurrent = settlementFor(second.actions, second.message);
    const results = await Promise.allSettled([concurrent.abandon(), concurrent.complete()]);
    expect(results[0]?.status).toBe('fulfilled');
    expect(
      results[1]?.status === 'rejected' && isFunctionsAdapterError(results[1].reason) && results[1].reason.code,
    ).toBe('MessageAlreadySettled');
    expect(callsFor(second.lockToken).map((call) => call.method)).toEqual(['Abandon']);
  });

  it("renews a session message's lock as its session's lock, settling nothing, as often as asked", async () => {
    const { actions, message, lockToken } = deliver();
    const settlement = settlementFor(actions, message);
    const before = host.calls.length;
    await settlement.renewLock();
    await settlement.renewLock();
    const renewals = host.calls.slice(before);
    expect(renewals.map((call) => call.method)).toEqual(['RenewSessionLock', 'RenewSessionLock']);
    expect(renewals[0]?.request).toMatchObject({ sessionId: 'order-1' });
    await settlement.complete();
    expect(callsFor(lockToken).map((call) => call.method)).toEqual(['Complete']);
  });

  it('reports a host failure and leaves the message open for another outcome', async () => {
    const { actions, message, lockToken } = deliver();
    const settlement = settlementFor(actions, message);
    host.failNext('Deadletter', grpc.status.UNAVAILABLE, 'host going away');
    const silence = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const error = await expectCode(
      settlement.deadLetter(DeadLetterReason.SchemaValidationFailed, 'bad'),
      'SettlementFailed',
    );
    silence.mockRestore();
    expect((error as Error).cause).toMatchObject({ code: grpc.status.UNAVAILABLE });
    await settlement.abandon();
    expect(callsFor(lockToken).map((call) => call.method)).toEqual(['Deadletter', 'Abandon']);
  });
});
