import { html } from 'hono/html';
import { OutboxStatus } from '../../../src/core/documents/outboxRecord.js';
import type { OutboxDispatchRecord } from '../../../src/core/outbox/outboxRecordState.js';
import { csrfField, failure, table, type Html } from './layout.js';

/** The filter form of the outbox page. */
export function outboxFilters(status: string, order: string): Html {
  return html`<form method="get" action="/outbox" class="filters">
<label>status <select name="status"><option value="">any</option>${Object.values(OutboxStatus).map((s) => html`<option${s === status ? html` selected` : ''}>${s}</option>`)}</select></label>
<label>order <input name="order" value="${order}" placeholder="orderId"></label>
<button type="submit">Filter</button></form>`;
}

/** `convoy outbox list`, with a retry button on each failed record (`convoy outbox retry <order> --entry`). */
export function outboxList(records: readonly OutboxDispatchRecord[] | { error: unknown }, csrf: string, writable: boolean): Html {
  if ('error' in records) return failure('Outbox records', records.error);
  const failed = records.filter((r) => r.status === OutboxStatus.Failed).length;
  return html`<p class="count" id="outbox-count">${records.length} record(s), ${failed} failed (each holds its order's later records until retried)</p>
${table(
  ['order', 'seq', 'entry', 'status', 'attempts', 'last error', ''],
  records.map((r) => [
    html`<a href="/orders/${encodeURIComponent(r.orderId)}">${r.orderId}</a>`,
    r.sequence,
    r.entryId,
    html`<span class="status-${r.status}" data-entry="${r.entryId}">${r.status}</span>`,
    r.attempts,
    html`<span class="desc">${r.lastError ?? '–'}</span>`,
    r.status === OutboxStatus.Failed && writable
      ? html`<form method="post" action="/outbox/${encodeURIComponent(r.orderId)}/retry">${csrfField(csrf)}<input type="hidden" name="entry" value="${r.entryId}"><button type="submit">Retry</button></form>`
      : '',
  ]),
  'No outbox records.',
)}`;
}
