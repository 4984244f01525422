import { describe, expect, it } from 'vitest';
import { smallChaosOptions } from './chaosOptions.js';
import { formatReport } from './report.js';
import { runChaos, type ChaosReport } from './runChaos.js';

/*
 * The small fault-injection run (fixed seed, 1,500 entries over 50 orders): the same stack, faults and invariants
 * as `npm run chaos`, sized for the suite. Two function hosts, the Service Bus emulator as child processes.
 */
describe('chaos: exactly once and in order under faults', () => {
  // About a minute on two idle cores; the timeout only guards against a hang, so a loaded machine still finishes.
  it(
    'keeps every invariant while hosts crash, Cosmos fails, the broker restarts and the relay loses hosts, leases and its webhook',
    { timeout: 480_000 },
    async () => {
      // Prepare
      const options = smallChaosOptions();
      // Act
      let report: ChaosReport | undefined;
      try {
        report = await runChaos(options);
      } finally {
        // Always: when an assertion below fails, the report is what explains it.
        if (report) process.stderr.write(`${formatReport(report)}\n`);
      }
      // Assess: the faults really happened…
      expect(report.workload.entries).toBeLessThanOrEqual(2_000);
      expect(report.faults.hostKill).toBeGreaterThan(0);
      expect(report.faults.serviceBusRestart).toBe(1);
      expect(report.faults.commitThenFail).toBe(options.commitThenFail);
      expect(report.faults.throttle429).toBe(options.throttleBursts);
      expect(report.faults.sustainedThrottle).toBe(options.sustainedThrottles);
      // The sustained phase reached the processor, which waited it out (rule 8).
      expect(report.observed['store throttled, waiting']).toBeGreaterThan(0);
      expect(report.faults.unavailable503).toBe(options.unavailableBursts);
      const { crashBeforeSettle = 0, slowBeforeHandler = 0, slowBeforeSettle = 0 } = report.faults;
      expect(crashBeforeSettle + slowBeforeHandler + slowBeforeSettle).toBeGreaterThan(0);
      expect(report.faults.directDuplicateEntrySends).toBeGreaterThan(0);
      expect(report.faults.duplicateLedgerSends).toBeGreaterThan(0);
      expect(report.faults.competingHosts).toBe(2);
      // The relay's faults: a crash between its sends and the checkpoint, a lost lease, webhook outages (some orders,
      // one order alone, every order) that failed POSTs of the planned orders; the hold timer released every hold.
      expect(report.faults.relayCrash).toBeGreaterThan(0);
      expect(report.faults.leaseLost).toBe(options.leaseLosses);
      expect(report.observed.leasesNotYetCreated).toBe(0);
      expect(report.faults.webhookOutage).toBe(
        options.webhookOutages + options.loneWebhookOutages + options.wideWebhookOutages,
      );
      expect(report.observed.ordersHeld).toBeGreaterThan(0);
      expect(report.observed.webhookRejected).toBeGreaterThan(0);
      // …and every invariant held.
      expect(
        report.invariants.filter((i) => !i.ok && !i.goal).map((i) => `${i.name}: ${i.violations.join(' | ')}`),
      ).toEqual([]);
      expect(report.observed.unexpectedHostExits).toBe(0);
      expect(report.ok).toBe(true);
    },
  );
});
