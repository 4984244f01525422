import { html } from 'hono/html';
import { ALL_EVENTS_SUBSCRIPTION, DeadLetterReason, ORDER_EVENTS_TOPIC } from 'ledger-convoy/core';
import { NO_SUBSCRIPTION_RESUBMIT } from '../../dlq/resubmit.js';
import { subscriptionOf, subscriptionPath } from '../../serviceBus.js';
import type { DeadLetterView } from '../consoleData.js';
import { age, csrfField, failure, table, type Html } from './layout.js';

/** The list's filters as the form sends them. */
export interface DeadLetterQuery {
  queue: string;
  reason: string;
  order: string;
}

const detailHref = (queue: string, sequenceNumber: string) =>
  `/dead-letters/${encodeURIComponent(queue)}/${encodeURIComponent(sequenceNumber)}`;

/** The filter form; the list itself is {@link deadLetterList}, refreshed live. */
export function deadLetterFilters(q: DeadLetterQuery): Html {
  // The queues, the default subscription of order-events, and any other subscription the page was opened on.
  const entities = [
    ...new Set(['orders', 'ledger', subscriptionPath(ORDER_EVENTS_TOPIC, ALL_EVENTS_SUBSCRIPTION), q.queue]),
  ];
  return html`<form method="get" action="/dead-letters" class="filters">
<label>queue <select name="queue">${entities.map((name) => html`<option${name === q.queue ? html` selected` : ''}>${name}</option>`)}</select></label>
<label>reason <select name="reason"><option value="">any</option>${Object.values(DeadLetterReason).map(
    (r) => html`<option${r === q.reason ? html` selected` : ''}>${r}</option>`,
  )}</select></label>
<label>order <input name="order" value="${q.order}" placeholder="orderId"></label>
<button type="submit">Filter</button>
</form>`;
}

/** The dead letters with reason, description, order, sequence and age, and the orders' rejected entries. */
export function deadLetterList(listing: DeadLetterView | { error: unknown }, q: DeadLetterQuery): Html {
  if ('error' in listing) return failure(`${q.queue}/$DeadLetterQueue`, listing.error);
  const bounded = listing.peeked >= listing.peekLimit;
  return html`<p class="count" id="dead-letter-count">${listing.deadLetters.length} dead letter(s) on ${listing.queue}/$DeadLetterQueue${q.reason ? ` with reason ${q.reason}` : ''}${q.order ? ` of order ${q.order}` : ''}</p>
${bounded ? html`<p class="note" id="dead-letter-bound">Among the first ${listing.peekLimit} of the queue, peeked on each refresh; there may be more (<code>convoy dlq list</code> reads them all).</p>` : ''}
${table(
  ['#', 'reason', 'description', 'order', 'seq', 'entryId', 'age'],
  listing.deadLetters.map((d) => [
    html`<a href="${detailHref(listing.queue, d.sequenceNumber)}">#${d.sequenceNumber}</a>`,
    d.reason,
    html`<span class="desc">${d.description}</span>`,
    d.sessionId ? html`<a href="/orders/${encodeURIComponent(d.sessionId)}">${d.sessionId}</a>` : '–',
    d.sequence,
    d.entryId,
    html`<span title="${d.enqueuedAt}">${age(d.enqueuedAt)}</span>`,
  ]),
  'No dead letters.',
)}
${
  listing.rejected.length > 0
    ? html`<h2>Rejected entries (rule 11)</h2>${table(
        ['order', 'seq', 'entryId', 'reason'],
        listing.rejected.map((r) => [
          html`<a href="/orders/${encodeURIComponent(r.orderId)}">${r.orderId}</a>`,
          r.sequence,
          r.entryId,
          r.reason,
        ]),
        '',
      )}`
    : ''
}
${listing.ordersUnavailable ? html`<p class="error" role="alert">Rejected entries not shown: ${listing.ordersUnavailable}</p>` : ''}`;
}

/** The purge form: the operator types the queue's name to confirm. */
export function purgeForm(queue: string, csrf: string, writable: boolean): Html {
  if (!writable) return html``;
  return html`<details class="danger"><summary>Purge every dead letter of ${queue}</summary>
<form method="post" action="/dead-letters/${encodeURIComponent(queue)}/purge" class="purge">
${csrfField(csrf)}
<p>Purging deletes every dead letter of ${queue}/$DeadLetterQueue for good (<code>convoy dlq purge --yes</code>). Type <strong>${queue}</strong> to confirm.</p>
<input name="confirm" autocomplete="off" aria-label="type ${queue} to confirm">
<button type="submit" class="danger">Purge</button>
</form></details>`;
}

/** One dead letter: its properties, its body in an editor, resubmit (edited or as is). */
export function deadLetterDetail(
  queue: string,
  detail: Record<string, unknown> | { error: unknown },
  csrf: string,
  writable: boolean,
): Html {
  if ('error' in detail) return failure(`Dead letter of ${queue}`, detail.error);
  // A subscription's dead letter is shown and purged, never resubmitted (say why, where the operator looks).
  const resubmittable = writable && subscriptionOf(queue) === undefined;
  const { body, applicationProperties, ...properties } = detail;
  const sequenceNumber = String(detail.sequenceNumber);
  const bodyText = typeof body === 'string' ? body : JSON.stringify(body, null, 2);
  const action = `${detailHref(queue, sequenceNumber)}/resubmit`;
  return html`<h1>Dead letter #${sequenceNumber} of ${queue}</h1>
<div class="scroll"><dl class="props">${Object.entries(properties).map(([k, v]) => html`<dt>${k}</dt><dd>${v === undefined ? '–' : String(v)}</dd>`)}
<dt>applicationProperties</dt><dd><code>${JSON.stringify(applicationProperties)}</code></dd></dl></div>
${detail.sessionId ? html`<p><a href="/orders/${encodeURIComponent(String(detail.sessionId))}">Order ${String(detail.sessionId)}</a></p>` : ''}
<form method="post" action="${action}" id="resubmit-edited">
${csrfField(csrf)}
<label for="body">Body</label>
<textarea id="body" name="body" rows="14" spellcheck="false"${resubmittable ? '' : html` readonly`}>${bodyText}</textarea>
${subscriptionOf(queue) ? html`<p class="note" id="no-resubmit">${NO_SUBSCRIPTION_RESUBMIT.join(' ')}</p>` : ''}
${
  resubmittable
    ? html`<p class="note">Resubmitting sends it back to its session as <code>&lt;entryId&gt;.r&lt;n&gt;</code> (rule 10), as <code>convoy dlq resubmit</code> does. A corrected entry must keep its entryId, sequence and order.</p>
<button type="submit" name="mode" value="edited">Resubmit with this body</button>`
    : ''
}
</form>
${
  resubmittable
    ? html`<form method="post" action="${action}" id="resubmit-as-is">${csrfField(csrf)}<button type="submit" name="mode" value="as-is">Resubmit as is</button></form>`
    : ''
}`;
}
