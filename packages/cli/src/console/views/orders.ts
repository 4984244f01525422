import { html } from 'hono/html';
import type { OrderDetail } from '../consoleData.js';
import { age, csrfField, failure, table, type Html } from './layout.js';

/** The live part of an order: state, parked, rejected (with a correction form each), applied history, dead letters. */
export function orderDetail(
  orderId: string,
  detail: OrderDetail | { error: unknown },
  csrf: string,
  writable: boolean,
): Html {
  if ('error' in detail) return failure(`Order ${orderId}`, detail.error);
  const v = detail.view;
  if (!v)
    return html`<p class="empty" id="order-state">Nothing of order ${orderId} exists (GET /api/orders/${orderId} answered 404).</p>`;
  const money = (n: number) => `${(n / 100).toFixed(2)} ${v.currency ?? ''}`.trim();
  return html`<div class="scroll"><dl class="props" id="order-state">
<dt>status</dt><dd data-field="status">${v.status}</dd>
<dt>last applied sequence</dt><dd data-field="lastSequence">${v.lastSequence}</dd>
<dt>customer</dt><dd>${v.customerId ?? '–'}</dd>
<dt>total</dt><dd data-field="total">${money(v.total)}</dd>
</dl></div>
<h2>Transactions</h2>
${table(
  ['transactionId', 'amount'],
  v.transactions.map((t) => [t.transactionId, money(t.amount)]),
  'No transactions.',
)}
<h2>Parked</h2>
${table(
  ['seq', 'entryId'],
  v.parked.map((p) => [p.sequence, p.entryId]),
  'Nothing parked.',
)}
<h2>Rejected</h2>
${
  v.rejected.length === 0
    ? html`<p class="empty">Nothing rejected.</p>`
    : v.rejected.map((r) => {
        const record = detail.rejected?.find((x) => x.sequence === r.sequence && x.entryId === r.entryId);
        const template = record?.details?.entry ?? {
          entryId: r.entryId,
          orderId,
          sequence: r.sequence,
          type: '',
          data: {},
        };
        return html`<form method="post" action="/orders/${encodeURIComponent(orderId)}/rejected/${r.sequence}/resubmit" class="rejected">
${csrfField(csrf)}
<p><strong>${r.sequence}</strong> ${r.entryId}: ${r.reason}${record ? html` – ${record.details?.description ?? 'its details are missing'} (${age(record.rejectedAt)} ago)` : ''}</p>
${
  writable
    ? html`<label>corrected entry <textarea name="body" rows="8" spellcheck="false">${JSON.stringify(template, null, 2)}</textarea></label>
<button type="submit">Resubmit corrected entry</button>`
    : ''
}
</form>`;
      })
}
<h2>Dead letters of this order</h2>
${table(
  ['#', 'reason', 'seq', 'entryId'],
  detail.deadLetters.map((d) => [
    html`<a href="/dead-letters/orders/${encodeURIComponent(d.sequenceNumber)}">#${d.sequenceNumber}</a>`,
    d.reason,
    d.sequence,
    d.entryId,
  ]),
  'No dead letters.',
)}
<h2>Applied history</h2>
${detail.storeError ? failure('Cosmos DB', new Error(detail.storeError)) : ''}
${
  detail.applied
    ? table(
        ['seq', 'entryId', 'applied'],
        detail.applied.map((a) => [
          a.sequence,
          a.entryId,
          html`<span title="${a.appliedAt}">${age(a.appliedAt)} ago</span>`,
        ]),
        'Nothing applied yet.',
      )
    : ''
}`;
}
