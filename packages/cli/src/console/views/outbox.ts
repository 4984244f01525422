import { html } from 'hono/html';
import type { OutboxListing } from '../../commands/outboxRetry.js';
import { age, csrfField, failure, table, type Html } from './layout.js';

/** The filter form of the outbox page. */
export function outboxFilters(order: string): Html {
  return html`<form method="get" action="/outbox" class="filters">
<label>order <input name="order" value="${order}" placeholder="orderId"></label>
<button type="submit">Filter</button></form>`;
}

/**
 * `convoy outbox list`: the relay's lag per lease and the holds with their next attempt, each with a release button
 * (`convoy outbox retry`) and a discard form (`convoy outbox discard --reason`) that asks for the orderId typed
 * again and a reason.
 */
export function outboxList(listing: OutboxListing | { error: unknown }, csrf: string, writable: boolean): Html {
  if ('error' in listing) return failure('Outbox relay', listing.error);
  return html`<h2>Lag</h2>
${table(
  ['lease', 'owner', 'lag'],
  listing.leases.map((l) => [
    l.leaseToken,
    l.owner ?? '–',
    html`<span data-lease="${l.leaseToken}">${l.lagSeconds} s</span>`,
  ]),
  'No relay leases: the relay has not run against this account yet.',
)}
<h2>Holds</h2>
<p class="count" id="hold-count">${listing.holds.length} order(s) on hold</p>
${table(
  ['order', 'targets', 'held records', 'held', 'next attempt', 'last error', ''],
  listing.holds.map((h) => [
    html`<a href="/orders/${encodeURIComponent(h.orderId)}">${h.orderId}</a>`,
    h.targets.join(', '),
    html`<span data-held="${h.orderId}">${h.records}</span> through ${h.heldThrough}`,
    html`<span title="${h.since}" data-hold="${h.orderId}">${age(h.since)} ago</span>`,
    h.releasingUntil
      ? html`<span title="${h.releasingUntil}">being released</span>`
      : html`<span title="${h.nextAttempt}" data-next="${h.orderId}">${nextAttempt(h.nextAttempt)}</span> (${h.attempts} failed)`,
    html`<span class="desc">${h.lastError}</span>`,
    writable ? holdActions(h.orderId, csrf) : '',
  ]),
  "No holds: every order's events are flowing.",
)}`;
}

function holdActions(orderId: string, csrf: string): Html {
  const id = encodeURIComponent(orderId);
  return html`<form method="post" action="/outbox/${id}/release">${csrfField(csrf)}<button type="submit">Release now</button></form>
<a href="/outbox?order=${id}#discard">Discard…</a>`;
}

/**
 * The discard form of one order (outside the live region, so a refresh never clears it): the operator types the
 * orderId again and a reason, kept in the audit record.
 */
export function discardForm(orderId: string, csrf: string, writable: boolean): Html {
  if (!writable || orderId === '') return html``;
  return html`<details class="danger" id="discard"><summary>Discard the hold of ${orderId}</summary>
<form method="post" action="/outbox/${encodeURIComponent(orderId)}/discard" class="discard">
${csrfField(csrf)}
<p>Discarding drops the held records of ${orderId} for good: they never reach the held target(s); the relay then sends the order's later records (<code>convoy outbox discard --reason</code>). An audit record in the order keeps the reason, and <code>OutboxDiscarded</code> is raised. Type <strong>${orderId}</strong> to confirm.</p>
<input name="confirm" autocomplete="off" aria-label="type ${orderId} to confirm">
<input name="reason" autocomplete="off" placeholder="reason" aria-label="reason">
<button type="submit" class="danger">Discard</button>
</form></details>`;
}

function nextAttempt(iso: string): string {
  const ms = Date.parse(iso) - Date.now();
  return ms <= 0 ? 'due' : `in ${age(new Date(Date.now() - ms).toISOString())}`;
}
