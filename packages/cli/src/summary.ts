import type { SendReport } from './send.js';
import type { VerifyReport } from './verify.js';

/** The readable summary of a verification, one finding per line. */
export function formatVerifyReport(report: VerifyReport): string {
  const { comparison: c } = report;
  const lines: string[] = [];
  const verdict = report.ok ? 'OK' : 'MISMATCH';
  const why = { matched: 'the expectation holds', settled: 'queues empty and nothing changed', timeout: 'timed out' }[
    report.outcome
  ];
  lines.push(`${verdict} after ${(report.waitedMs / 1000).toFixed(1)} s (${why})`);
  lines.push(
    `orders: ${c.orders.matched}/${c.orders.expected} matched, ${c.orders.mismatched.length} mismatched, ${c.orders.missing.length} missing`,
  );
  for (const m of c.orders.mismatched.slice(0, 20)) lines.push(`  ✗ ${m.orderId}: ${m.differences.join('; ')}`);
  if (c.orders.mismatched.length > 20) lines.push(`  … and ${c.orders.mismatched.length - 20} more`);
  if (c.orders.missing.length > 0) lines.push(`  missing (404): ${abbreviate(c.orders.missing)}`);
  lines.push('dead letters (expected / found):');
  if (c.deadLetters.byReason.length === 0) lines.push('  none expected, none found');
  for (const r of c.deadLetters.byReason)
    lines.push(`  ${r.expected === r.found ? '✓' : '✗'} ${r.reason}: ${r.expected} / ${r.found}`);
  for (const d of c.deadLetters.missing.slice(0, 20))
    lines.push(`  missing: ${d.queue} ${d.id} ${d.reason} (${d.cause})`);
  for (const d of c.deadLetters.unexpected.slice(0, 20)) {
    lines.push(`  unexpected: ${d.queue} ${d.id} ${d.reason}${d.description ? ` — ${d.description}` : ''}`);
  }
  return lines.join('\n');
}

/** One line about what `send` did. */
export function formatSendReport(report: SendReport): string {
  const c = report.expectation.counts;
  return [
    `run ${report.expectation.run} (seed ${report.expectation.seed}): sent ${report.sent} messages`,
    `  ${c.orders} orders, ${c.entries} entries in ${c.ledgers} ledgers (+${c.resentLedgers} re-sent), ` +
      `${c.duplicateEntries} duplicate entries, ${c.conflicts} conflicts, ${c.poison} poison, ${c.gaps} gaps`,
    `  expected dead letters: ${report.expectation.deadLetters.length}`,
    report.out ? `  expectation written to ${report.out} — check it with \`convoy verify --file ${report.out}\`` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

function abbreviate(ids: string[], max = 10): string {
  return ids.length <= max ? ids.join(', ') : `${ids.slice(0, max).join(', ')} … (+${ids.length - max})`;
}
