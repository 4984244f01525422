import { html } from 'hono/html';
import type { OrderPage, OrderTab } from '../orderListing.js';
import { age, failure, table, type Html } from './layout.js';

const TABS: readonly (readonly [OrderTab, string])[] = [
  ['recent', 'Most recent'],
  ['parked', 'Parked'],
  ['rejected', 'Rejected'],
  ['held', 'Held'],
];

/** The tabs of the Orders page and the look-up form. */
export function orderTabs(current: OrderTab | undefined, orderId = ''): Html {
  return html`<nav class="tabs" aria-label="order lists">${TABS.map(
    ([tab, label]) =>
      html`<a href="/orders?tab=${tab}"${tab === current ? html` aria-current="page"` : ''}>${label}</a>`,
  )}</nav>
<form method="get" action="/orders" class="filters"><label>order <input name="id" value="${orderId}" placeholder="orderId" required></label><button type="submit">Look up</button></form>`;
}

/** One page of a list, each order a link to its page, and a link to the next page while there is one. */
export function orderList(tab: OrderTab, page: OrderPage | { error: unknown }, pageNumber: number): Html {
  if ('error' in page) return failure('Orders', page.error);
  const link = (id: string) => html`<a href="/orders/${encodeURIComponent(id)}">${id}</a>`;
  const rows = page.orders.map((o) => [
    link(o.orderId),
    o.status ?? '–',
    o.lastSequence ?? '–',
    o.parked.join(', ') || '–',
    o.oldestParkedAt ? html`<span title="${o.oldestParkedAt}">${age(o.oldestParkedAt)}</span>` : '–',
    o.rejected.map((r) => `${r.sequence} (${r.reason})`).join(', ') || '–',
    o.heldTargets.join(', ') || '–',
    o.changedAt ? html`<span title="${o.changedAt}">${age(o.changedAt)} ago</span>` : '–',
  ]);
  const empty = {
    parked: 'No order has parked entries.',
    rejected: 'No order has rejected entries.',
    held: 'No order is on hold.',
    recent: 'No orders yet.',
  }[tab];
  const next =
    page.continuation === undefined
      ? ''
      : html`<a id="next-page" href="/orders?${new URLSearchParams({ tab, after: page.continuation, page: String(pageNumber + 1) })}">Next page</a>`;
  return html`<p class="count" id="order-page">Page ${pageNumber}: ${page.orders.length} order(s)${page.continuation === undefined ? '' : ', more follow'}</p>
${table(['order', 'status', 'last applied', 'parked', 'oldest gap', 'rejected', 'held for', 'changed'], rows, empty)}
<p class="pager">${pageNumber > 1 ? html`<a href="/orders?tab=${tab}">First page</a> ` : ''}${next}</p>`;
}
