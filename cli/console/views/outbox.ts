import { html } from 'hono/html';
import type { OutboxListing } from '../../commands/outboxRetry.js';
import { age, csrfField, failure, table, type Html } from './layout.js';

/** The filter form of the outbox page. */
export function outboxFilters(order: string): Html {
  return html`<form method="get" action="/outbox" class="filters">
<label>order <input name="order" value="${order}" placeholder="orderId"></label>
<button type="submit">Filter</button></form>`;
}

/** `convoy outbox list`: the relay's lag per lease and the holds, each with a release button (`convoy outbox retry`). */
export function outboxList(listing: OutboxListing | { error: unknown }, csrf: string, writable: boolean): Html {
  if ('error' in listing) return failure('Outbox relay', listing.error);
  return html`<h2>Lag</h2>
${table(
  ['lease', 'owner', 'lag'],
  listing.leases.map((l) => [l.leaseToken, l.owner ?? '–', html`<span data-lease="${l.leaseToken}">${l.lagSeconds} s</span>`]),
  'No relay leases: the relay has not run against this account yet.',
)}
<h2>Holds</h2>
<p class="count" id="hold-count">${listing.holds.length} order(s) on hold</p>
${table(
  ['order', 'held records', 'sequences', 'failed targets', 'held', 'last error', ''],
  listing.holds.map((h) => [
    html`<a href="/orders/${encodeURIComponent(h.orderId)}">${h.orderId}</a>`,
    h.records.length,
    `${h.records[0]?.sequence ?? '–'}..${h.records.at(-1)?.sequence ?? '–'}`,
    h.failedTargets.join(', '),
    html`<span title="${h.heldAt}" data-hold="${h.orderId}">${age(h.heldAt)} ago</span>`,
    html`<span class="desc">${h.lastError}</span>`,
    writable
      ? html`<form method="post" action="/outbox/${encodeURIComponent(h.orderId)}/release">${csrfField(csrf)}<button type="submit">Release</button></form>`
      : '',
  ]),
  'No holds: every order\'s events are flowing.',
)}`;
}
