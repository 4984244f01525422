import { Command } from 'commander';
import type { CliIo } from '../io.js';
import { collect } from '../options.js';
import { runSessions, type SessionsReport } from '../sessions.js';
import { addConnectionOptions, resolveCliSettings, type ConnectionFlags } from '../settings.js';
import { table } from '../table.js';

/** `convoy sessions`. */
export function sessionsCommand(io: CliIo): Command {
  const command = new Command('sessions')
    .description(
      "Active sessions per session queue (depth, lock holder), the order-events topic's subscriptions (backlog, sessions, dead letters), and the orders' parked and rejected entries",
    )
    .option(
      '--admin <url>',
      "the Service Bus emulator's stats URL (else $CONVOY_ADMIN, else http://<emulator host>:5300/stats)",
    )
    .option('--order <id>', 'also show this order (repeatable)', collect, [])
    .option('--json', 'print JSON');
  return addConnectionOptions(command).action(
    async (flags: ConnectionFlags & { admin?: string; order: string[]; json?: boolean }) => {
      const report = await runSessions({
        settings: resolveCliSettings(flags),
        admin: flags.admin,
        orders: flags.order,
      });
      io.out(flags.json ? JSON.stringify(report, null, 2) : formatSessions(report));
    },
  );
}

function formatSessions(report: SessionsReport): string {
  const lines: string[] = [];
  for (const q of report.queues) {
    lines.push(
      `${q.name}: ${q.active} active, ${q.deadLettered} dead-lettered${q.requiresSession ? ' (sessions)' : ''}`,
    );
    if (q.sessions && q.sessions.length > 0) {
      const rows = table(
        ['session', 'depth', 'holder', 'locked until'],
        q.sessions.map((s) => [s.id, s.depth, s.holder ?? '-', s.lockedUntil ?? '-']),
      );
      lines.push(...rows.split('\n').map((line) => `  ${line}`));
    }
  }
  for (const t of report.topics) {
    lines.push(
      `topic ${t.name}: ${t.active} active in its subscriptions${t.sizeInBytes === undefined ? '' : `, ${t.sizeInBytes} bytes`}`,
    );
    for (const s of t.subscriptions) {
      const sessions = s.sessions === undefined ? '' : `, ${s.sessions} session(s) with messages`;
      lines.push(`  subscription ${s.name}: ${s.active} active, ${s.deadLettered} dead-lettered${sessions}`);
    }
  }
  if (report.source === 'azure') lines.push('(Azure has no per-session listing: queue-level counts only)');
  for (const o of report.orders) {
    const parked = o.parked.map((p) => `${p.sequence}:${p.entryId}`).join(', ') || '-';
    const rejected = o.rejected.map((r) => `${r.sequence}:${r.entryId} (${r.reason})`).join(', ') || '-';
    lines.push(`order ${o.orderId} [${o.status}, last ${o.lastSequence}] parked: ${parked}; rejected: ${rejected}`);
  }
  if (report.ordersUnavailable) lines.push(`orders not shown: ${report.ordersUnavailable}`);
  return lines.join('\n');
}
