import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { app } from '@azure/functions';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FunctionApi, peekAll, readExpectation, subscriptionPath, type Expectation } from '@ledger-convoy/cli';
import { repoPath, startLocalHost, type FunctionRegistration, type LocalHost } from '@ledger-convoy/local-host';
import { ALL_EVENTS_SUBSCRIPTION, ORDER_EVENTS_TOPIC } from '../../src/core/index.js';
import { until } from '../support/serviceBusWaits.js';
import { businessStateOf, waitForValue } from './support/views.js';
import { startE2eStack, type E2eStack } from './support/e2eStack.js';

type Example = typeof import('../../examples/orderReadModel.js');

// Orders with duplicate entries, resent ledgers and entries sent ahead of a gap, reproducibly; nothing rejected.
const RUN = { orders: 24, entries: 6, ledgers: 4, duplicates: 0.2, gaps: 6, seed: 20_261_207 };

let dir: string;
let stack: E2eStack;
let subscriber: LocalHost;
let example: Example;

/**
 * The example file as a Functions host loads it: imported, its `app.serviceBusTopic` call taken as the registration
 * (outside a host the library would only skip the call).
 */
async function loadExample(): Promise<{ module: Example; registrations: FunctionRegistration[] }> {
  const registrations: FunctionRegistration[] = [];
  const spy = vi
    .spyOn(app, 'serviceBusTopic')
    .mockImplementation((name, options) => void registrations.push({ kind: 'serviceBusTopic', name, options }));
  try {
    return { module: await import('../../examples/orderReadModel.js'), registrations };
  } finally {
    spy.mockRestore();
  }
}

beforeAll(async () => {
  const loaded = await loadExample();
  example = loaded.module;
  // The entity file with the example's subscription added, as a deployment adds a downstream.
  dir = await mkdtemp(join(tmpdir(), 'convoy-example-'));
  const entityFile = JSON.parse(await readFile(repoPath('infra/servicebus.config.json'), 'utf8')) as {
    UserConfig: { Namespaces: { Topics: { Name: string; Subscriptions: { Name: string }[] }[] }[] };
  };
  const topic = entityFile.UserConfig.Namespaces[0]!.Topics.find((t) => t.Name === ORDER_EVENTS_TOPIC)!;
  const all = topic.Subscriptions.find((s) => s.Name === ALL_EVENTS_SUBSCRIPTION)!;
  topic.Subscriptions.push({ ...all, Name: example.SUBSCRIPTION });
  await writeFile(join(dir, 'servicebus.config.json'), JSON.stringify(entityFile));
  stack = await startE2eStack({ serviceBusEntityFile: join(dir, 'servicebus.config.json') });
  // The downstream is a function app of its own: a second host on the same namespace, serving the example alone.
  subscriber = await startLocalHost({
    emulators: false,
    registrations: loaded.registrations,
    settingsFile: join(dir, 'no-local.settings.json'),
    // Its own host.json's default, unlike this app's (whose functions settle each message themselves).
    serviceBus: { autoCompleteMessages: true },
    httpPort: 0,
    quiet: true,
  });
}, 60_000);

afterAll(async () => {
  await subscriber?.close();
  await stack?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('examples/orderReadModel.ts, the downstream to copy, in the in-process host against the emulators', () => {
  it(
    'folds every order into the GET view, however entries were duplicated or sent ahead of a gap, and skips replayed events',
    { timeout: 120_000 },
    async () => {
      // Prepare
      const file = join(dir, 'expected.json');
      const flags = Object.entries(RUN).flatMap(([name, value]) => [`--${name}`, String(value)]);
      const sent = await stack.cli(['send', ...flags, '--out', file, '--quiet']);
      expect(sent, sent.err).toMatchObject({ code: 0 });
      const expectation: Expectation = await readExpectation(file);
      expect(expectation.counts.duplicateEntries + expectation.counts.resentLedgers).toBeGreaterThan(0);
      expect(expectation.counts.gaps).toBe(RUN.gaps);
      const verified = await stack.cli(['verify', '--file', file, '--timeout', '60', '--quiet']);
      expect(verified.code, verified.out).toBe(0);
      const api = new FunctionApi({ httpBaseUrl: stack.appUrl, functionKey: undefined });
      const views = new Map(
        await Promise.all(
          expectation.orders.map(async (o) => [o.orderId, businessStateOf((await api.getOrder(o.orderId))!)] as const),
        ),
      );

      // Act 1: the relay publishes; the example folds each order's events as its subscription delivers them.
      for (const [orderId, view] of views)
        await waitForValue(
          () => example.store.get(orderId),
          (folded) => isDeepStrictEqual(folded, view),
          `the read model of ${orderId}`,
        );

      // Act 2: every event again, as a relay replay after the duplicate-detection window would send it (a new
      // messageId gets past the broker's detection; the event itself is the same).
      const events = await peekAll(stack.bus, subscriptionPath(ORDER_EVENTS_TOPIC, ALL_EVENTS_SUBSCRIPTION));
      expect(events).toHaveLength(expectation.counts.entries);
      const sender = stack.bus.createSender(ORDER_EVENTS_TOPIC);
      await sender.sendMessages(
        events.map((m) => ({
          messageId: `${String(m.messageId)}.replay`,
          sessionId: m.sessionId,
          subject: m.subject,
          contentType: m.contentType,
          body: m.body,
        })),
      );
      await sender.close();
      const readModel = subscriptionPath(ORDER_EVENTS_TOPIC, example.SUBSCRIPTION);
      await until(async () => (await peekAll(stack.bus, readModel, undefined, 1)).length === 0, 'replays consumed');

      // Assess: each read model is still its order's GET view; nothing was dead-lettered on the way.
      for (const [orderId, view] of views) expect(await example.store.get(orderId), orderId).toEqual(view);
      expect(await peekAll(stack.bus, readModel, 'deadLetter')).toEqual([]);
    },
  );
});
