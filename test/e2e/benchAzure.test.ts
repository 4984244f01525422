import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCliSettings, type CliSettings } from '@ledger-convoy/cli';
import { runStep, stepRun } from '../../bench/support/azureStep.js';
import { startE2eStack, type E2eStack } from './support/e2eStack.js';

// bench:azure's step against `npm start`'s stack in-process: the CLI's paced send over HTTP, its verify, the
// watching through GET /api/orders/{id} and the bench's own Cosmos DB reads, with the real SDKs. Only Azure is missing.
describe('bench:azure: a step against the local stack', () => {
  let stack: E2eStack;
  let settings: CliSettings;
  beforeAll(async () => {
    stack = await startE2eStack();
    settings = resolveCliSettings(
      { servicebus: stack.serviceBusConnection, http: stack.appUrl },
      { CosmosConnection: stack.host.connectionStrings.CosmosConnection },
      '/nonexistent',
    );
  });
  afterAll(async () => stack?.close());

  it(
    'sends at the rate over HTTP, verifies every order, times the watched entries and reads their charge',
    { timeout: 90_000 },
    async () => {
      // Prepare
      const options = { rate: 40, seconds: 2, seed: 11, run: 'bzt', watchedOrders: 3, watchMs: 100 };
      const shape = stepRun(options);

      // Act
      const result = await runStep(settings, options);

      // Assess: verify's verdict, over the whole run …
      expect(shape).toMatchObject({ orders: 8, entries: 10, ledgers: 4, duplicates: 0, poison: 0 });
      expect(result.verify).toEqual({
        ok: true,
        outcome: 'matched',
        expected: 8,
        matched: 8,
        mismatched: 0,
        missing: 0,
      });
      expect(result).toMatchObject({ rate: 40, entries: 80, ledgers: 4 });
      // … a latency for every entry of the watched orders, none before its POST …
      expect(result.latency.samples).toBe(3 * 10);
      expect(result.latency.p50Ms).toBeGreaterThanOrEqual(0);
      expect(result.latency.maxMs).toBeGreaterThanOrEqual(result.latency.p99Ms);
      expect(result.watchReads).toBeGreaterThanOrEqual(3);
      // … and the request units the Cosmos DB emulator charged for reading the watched orders, as Azure would.
      expect(result.readCharge).toMatchObject({ orders: 3, documents: expect.any(Number) });
      expect('requestUnits' in result.readCharge && result.readCharge.requestUnits).toBeGreaterThan(0);
      expect(result.window.end).toBeGreaterThanOrEqual(result.window.start);
    },
  );
});
