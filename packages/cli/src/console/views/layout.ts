import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { Flash } from '../guard.js';
import { CSRF_FIELD } from '../guard.js';
import { describeError } from '../../errors.js';

/** Rendered HTML (hono's escaped string; a value interpolated with `html` is escaped unless it is one). */
export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** What every page shows around its content. */
export interface PageFrame {
  title: string;
  /** The nav entry to mark. */
  section: 'overview' | 'dead-letters' | 'orders' | 'outbox';
  /** The target, without secrets. */
  targetLabel: string;
  /** Why changes are refused, when they are. */
  readOnly: string | undefined;
  flash: readonly Flash[];
}

const SECTIONS = [
  ['overview', '/', 'Overview'],
  ['dead-letters', '/dead-letters', 'Dead letters'],
  ['orders', '/orders', 'Orders'],
  ['outbox', '/outbox', 'Outbox'],
] as const;

/** The page: header with the target, navigation, the notes of the last action, then `content`. */
export function page(frame: PageFrame, content: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · Ledger Convoy console</title>
<link rel="stylesheet" href="/static/console.css">
<script type="module" src="/static/console.js"></script>
</head>
<body>
<header>
  <strong>Ledger Convoy</strong>
  <nav>${SECTIONS.map(([key, href, label]) => html`<a href="${href}"${key === frame.section ? html` aria-current="page"` : ''}>${label}</a>`)}</nav>
  <span class="target">${frame.targetLabel}</span>
  ${frame.readOnly ? html`<span class="badge" id="read-only">read-only: ${frame.readOnly}</span>` : ''}
</header>
<main>
${frame.flash.map((f) => html`<p class="flash ${f.kind}" role="status">${f.text}</p>`)}
${content}
</main>
</body>
</html>`;
}

/** The hidden CSRF field every form carries. */
export function csrfField(token: string): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`;
}

/** A region the page script refreshes from `url` every few seconds (live updates without reloading). */
export function live(id: string, url: string, content: Html): Html {
  return html`<section id="${id}" data-live="${url}">${content}</section>`;
}

/** An error from the broker, the store or the app, shown where its data would be. */
export function failure(what: string, error: unknown): Html {
  const { message, hint } = describeError(error);
  return html`<p class="error" role="alert">${what}: ${message}${hint ? html` <span class="hint">→ ${hint}</span>` : ''}</p>`;
}

/** A table in a box that scrolls sideways on its own, so the page never does. */
export function table(headers: readonly string[], rows: readonly (readonly unknown[])[], empty: string): Html {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`<div class="scroll"><table><thead><tr>${headers.map((h) => html`<th>${h}</th>`)}</tr></thead><tbody>${rows.map(
    (r) => html`<tr>${r.map((cell) => html`<td>${cell ?? ''}</td>`)}</tr>`,
  )}</tbody></table></div>`;
}

/** "3 min ago" from an ISO time. */
export function age(iso: string | undefined, now = Date.now()): string {
  if (!iso) return '';
  const ms = now - Date.parse(iso);
  if (!Number.isFinite(ms)) return '';
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  if (s < 48 * 3600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}
