import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readExpectation, type VerifyReport } from '@ledger-convoy/cli';
import { startE2eStack, type E2eStack } from './support/e2eStack.js';

// The Cosmos DB emulator serves each container this many request units a second, and the app may retry a busy store
// for only a second: before rule 8 waited out throttling, most entries here were abandoned after their second and
// dead-lettered as MaxDeliveryCountExceeded after their tenth delivery.
const BUDGET_RU_PER_SECOND = 100;
const RETRY_BUDGET_MS = 1_000;
/**
 * What requests admitted together may overdraw the bucket by: the emulator admits a request while the bucket is above
 * zero and takes its charge afterwards, so each in-flight request (8 session slots, the relay, the leases' own bucket)
 * can spend up to its charge past the budget; an entry's batch charges under 30 RU.
 */
const OVERDRAW_RU = 10 * 30;
// At ≈ 18.5 RU per entry the budget serves about 5 entries a second: this is 24 seconds' worth, sent at once.
const RUN = { orders: 12, entries: 10, ledgers: 3, seed: 20_261_207 };

interface Counters {
  requestUnits: { total: number };
}

describe('a backlog far beyond the Cosmos DB budget (rule 8)', () => {
  let stack: E2eStack;
  const lines: string[] = [];
  const previousBudget = process.env.TRANSIENT_RETRY_BUDGET;

  beforeAll(async () => {
    process.env.TRANSIENT_RETRY_BUDGET = String(RETRY_BUDGET_MS);
    stack = await startE2eStack({
      cosmosThroughput: BUDGET_RU_PER_SECOND,
      logDestination: { write: (line: string) => void lines.push(line) },
    });
  });
  afterAll(async () => {
    await stack?.close();
    if (previousBudget === undefined) delete process.env.TRANSIENT_RETRY_BUDGET;
    else process.env.TRANSIENT_RETRY_BUDGET = previousBudget;
  });

  const cosmos = async (method: 'GET' | 'DELETE'): Promise<Counters | undefined> => {
    const endpoint = /AccountEndpoint=([^;]+);/.exec(stack.host.connectionStrings.CosmosConnection ?? '')?.[1];
    const response = await fetch(new URL('_emulator/counters', endpoint), { method });
    return method === 'GET' ? ((await response.json()) as Counters) : undefined;
  };

  it(
    'applies every entry once and in order with no dead letter, no faster than the budget serves them',
    { timeout: 600_000 },
    async () => {
      // Prepare
      const file = join(stack.dir, 'expected.json');
      const flags = Object.entries(RUN).flatMap(([name, value]) => [`--${name}`, String(value)]);
      await cosmos('DELETE');
      const startedAt = Date.now();

      // Act
      const sent = await stack.cli(['send', ...flags, '--out', file, '--quiet']);
      expect(sent, sent.err).toMatchObject({ code: 0 });
      const verified = await stack.cli(['verify', '--file', file, '--timeout', '540', '--json', '--quiet']);
      const elapsedMs = Date.now() - startedAt;
      const charged = (await cosmos('GET'))!.requestUnits.total;

      // Assess: every entry applied once, in order, and nothing dead-lettered …
      expect(verified.code, verified.out).toBe(0);
      const report = JSON.parse(verified.out) as VerifyReport;
      expect(report.comparison.orders).toMatchObject({ expected: RUN.orders, matched: RUN.orders });
      expect(report.comparison.deadLetters).toMatchObject({ missing: [], unexpected: [] });
      expect((await readExpectation(file)).deadLetters).toEqual([]);
      // … though the store throttled the processor far past its retry budget, which it waited out, never abandoning.
      const throttledWaits = lines.filter((l) => l.includes('store throttled, waiting')).length;
      expect(throttledWaits).toBeGreaterThan(0);
      expect(lines.filter((l) => l.includes('entry abandoned') || l.includes('drain abandoned'))).toEqual([]);
      // The bucket holds one second's worth: no run can spend its units faster than that, what requests admitted
      // together overdraw, and the budget's rate.
      expect(charged).toBeGreaterThan(RUN.orders * RUN.entries * 15);
      const unmetered = BUDGET_RU_PER_SECOND + OVERDRAW_RU;
      expect(elapsedMs).toBeGreaterThanOrEqual(((charged - unmetered) / BUDGET_RU_PER_SECOND) * 1000);
    },
  );
});
