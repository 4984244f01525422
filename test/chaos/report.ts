import type { ChaosReport } from './runChaos.js';

/** The run's report as text: workload, injected faults, what was observed, and each invariant's verdict. */
export function formatReport(report: ChaosReport): string {
  const lines: string[] = [];
  const kv = (title: string, values: Record<string, number>): void => {
    lines.push(title);
    const width = Math.max(...Object.keys(values).map((k) => k.length));
    for (const [key, value] of Object.entries(values)) lines.push(`  ${key.padEnd(width)}  ${value}`);
  };
  lines.push(
    `chaos run ${report.run} (seed ${report.seed}): ${report.workload.entries} valid entries over ${report.workload.orders} orders`,
  );
  kv('messages sent', report.workload.sends);
  kv('faults injected', report.faults);
  kv('observed', {
    ...report.observed,
    expectedDeadLetters: report.workload.expectedDeadLetters,
    settledAfterMs: report.settledAfterMs,
  });
  lines.push('invariants');
  for (const invariant of report.invariants) {
    lines.push(
      `  ${invariant.ok ? 'PASS' : invariant.goal ? 'MISS' : 'FAIL'}  ${invariant.name}${invariant.goal ? ' (goal, reported)' : ''} — ${invariant.summary}`,
    );
    for (const violation of invariant.violations) lines.push(`          ${violation}`);
  }
  if (report.observed.unexpectedHostExits)
    lines.push(`  FAIL  hosts exited unexpectedly ${report.observed.unexpectedHostExits} time(s)`);
  lines.push(
    `${report.ok ? 'OK' : 'VIOLATIONS FOUND'} — wall time ${(report.wallMs / 1000).toFixed(1)} s${report.ok ? '' : `; logs and data kept in ${report.runDir}`}`,
  );
  return lines.join('\n');
}
