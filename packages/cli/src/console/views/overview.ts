import { html } from 'hono/html';
import type { SessionsReport } from '../../sessions.js';
import type { WaitingCounts } from '../orderListing.js';
import type { ConsoleAlert } from '../consoleTelemetry.js';
import type { SamplePoint } from '../sampler.js';
import { lineChart } from './charts.js';
import { age, failure, table, type Html } from './layout.js';

/** What the overview's live region shows. */
export interface OverviewModel {
  sessions: SessionsReport | { error: unknown };
  waiting: WaitingCounts | { error: unknown };
  points: readonly SamplePoint[];
  windowMs: number;
  samplingError: string | undefined;
  /** Undefined: entries applied are not visible to this console (say why). */
  hasApplied: boolean;
  /** Undefined: alerts are not visible to this console. */
  alerts: ConsoleAlert[] | undefined;
  kind: 'emulator' | 'azure';
}

const orderLink = (id: string): Html => html`<a href="/orders/${encodeURIComponent(id)}">${id}</a>`;

/** Queues, the event topic's subscriptions, sessions of `orders`, the two charts and the alerts. */
export function overview(model: OverviewModel): Html {
  return html`${queues(model.sessions)}
${waitingOrders(model.waiting)}
<h2>Last 15 minutes</h2>
<div class="charts">
${
  model.hasApplied
    ? lineChart(
        'chart-applied',
        'Entries applied',
        'entries/s',
        model.points,
        (p) => p.appliedPerSecond,
        model.windowMs,
      )
    : html`<p class="note" id="chart-applied">Entries applied per second: ${unavailable(model.kind)}</p>`
}
${lineChart('chart-backlog', 'Backlog of orders', 'messages', model.points, (p) => p.backlog, model.windowMs)}
</div>
${model.samplingError ? html`<p class="error" role="alert">Sampling: ${model.samplingError}</p>` : ''}
<h2>Alerts</h2>
${
  model.alerts === undefined
    ? html`<p class="note" id="alerts">Alerts: ${unavailable(model.kind)}</p>`
    : html`<div id="alerts">${table(
        ['time', 'alert', 'order', 'entry', 'seq', 'reason'],
        model.alerts
          .slice(0, 50)
          .map((a) => [
            html`<span title="${a.at}">${age(a.at)} ago</span>`,
            a.name,
            a.orderId ? orderLink(a.orderId) : '',
            a.entryId,
            a.sequence,
            a.reason,
          ]),
        'No alerts since the console started: no conflicts, old gaps, rejected parked entries or outbox failures.',
      )}</div>`
}`;
}

function unavailable(kind: 'emulator' | 'azure'): Html {
  return kind === 'azure'
    ? html`not available against Azure from this console: they are in Application Insights (the <code>convoy.entries.applied</code> metric, and the events <code>IdempotencyKeyConflict</code>, <code>SequenceConflict</code>, <code>ParkedEntryRejected</code>, <code>GapTooOld</code>, <code>OutboxFailed</code>), which the console does not read.`
    : html`only the console that <code>npm start</code> serves sees them (it runs in the app's process); this one runs apart from the app.`;
}

function queues(report: OverviewModel['sessions']): Html {
  if ('error' in report) return failure('Queues', report.error);
  const orders = report.queues.find((q) => q.name === 'orders');
  return html`<h2>Queues</h2>
${table(
  ['queue', 'active', 'dead-lettered', 'scheduled'],
  report.queues.map((q) => [
    q.name,
    q.active,
    q.deadLettered > 0 ? html`<a href="/dead-letters?queue=${encodeURIComponent(q.name)}">${q.deadLettered}</a>` : 0,
    q.scheduled ?? '–',
  ]),
  'No queues.',
)}
${report.topics.map(
  (t) => html`<h2>Topic ${t.name}</h2>
<p class="note">${t.active} active in its subscriptions${t.sizeInBytes === undefined ? '' : `, ${t.sizeInBytes} bytes`}. Each subscription keeps a copy of every event it takes until read or expired; one nobody drains fills the topic, and then every send fails.</p>
${table(
  ['subscription', 'active', 'sessions with messages', 'dead-lettered'],
  t.subscriptions.map((sub) => [
    sub.name,
    sub.active,
    sub.sessions ?? '–',
    sub.deadLettered > 0
      ? html`<a href="/dead-letters?queue=${encodeURIComponent(sub.path)}">${sub.deadLettered}</a>`
      : 0,
  ]),
  'No subscriptions: the topic drops every event.',
)}`,
)}
<h2>Sessions of orders</h2>
${
  report.source === 'azure'
    ? html`<p class="note">Azure has no per-session listing: queue-level counts only.</p>`
    : table(
        ['session (order)', 'depth', 'holder', 'lock expires'],
        (orders?.sessions ?? []).map((s) => [
          orderLink(s.id),
          s.depth,
          s.holder ?? '–',
          s.lockedUntil ? html`<span title="${s.lockedUntil}">${s.lockedUntil.slice(11, 19)}</span>` : '–',
        ]),
        'No active sessions: every order is caught up.',
      )
}
`;
}

/** How many orders wait, each count a link to its list on the Orders page. */
function waitingOrders(waiting: OverviewModel['waiting']): Html {
  if ('error' in waiting)
    return html`<h2>Waiting orders</h2>${failure('Orders with parked or rejected entries', waiting.error)}`;
  const link = (tab: string, n: number, what: string) =>
    html`<li><a href="/orders?tab=${tab}" data-count="${tab}"><strong>${n}</strong> ${what}</a></li>`;
  return html`<h2>Waiting orders</h2>
<ul class="counts" id="waiting-counts">
${link('parked', waiting.parked, 'with entries parked behind a gap')}
${link('rejected', waiting.rejected, 'with rejected entries')}
${link('held', waiting.held, 'with their outbox on hold')}
</ul>`;
}
