import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import { html } from 'hono/html';
import { isLoopbackHost } from 'ledger-convoy/adapters/loopback';
import { errorText } from '../errors.js';
import { subscriptionOf } from '../serviceBus.js';
import { ORDER_EVENTS_TOPIC } from 'ledger-convoy/core';
import { ConsoleData } from './consoleData.js';
import type { ConsoleTarget } from './consoleTarget.js';
import { consoleGuard, newToken, type ConsoleSession, type GuardVariables } from './guard.js';
import { redactor } from './redact.js';
import { Sampler } from './sampler.js';
import {
  deadLetterDetail,
  deadLetterFilters,
  deadLetterList,
  purgeForm,
  type DeadLetterQuery,
} from './views/deadLetters.js';
import { live, page, type Html, type PageFrame } from './views/layout.js';
import { orderDetail } from './views/orders.js';
import { orderList, orderTabs } from './views/orderList.js';
import { isOrderTab, OrderTab } from './orderListing.js';
import { discardForm, outboxFilters, outboxList } from './views/outbox.js';
import { overview } from './views/overview.js';

/** The entity the dead-letter page reads: `ledger`, a subscription of `order-events` (its path), else `orders`. */
function deadLetterEntity(value: string | undefined): string {
  if (value === 'ledger') return value;
  if (value !== undefined && subscriptionOf(value)?.topic === ORDER_EVENTS_TOPIC) return value;
  return 'orders';
}

/** Options of {@link startConsole}. */
export interface ConsoleOptions {
  target: ConsoleTarget;
  /** @default 7072; 0 picks a free port */
  port?: number;
  /** Interface to listen on; anything but loopback requires the token. @default '127.0.0.1' */
  host?: string;
  /** Allow changes against a deployed (non-emulator) target. @default false */
  allowWrite?: boolean;
  /** How often the charts sample. @default 5000 */
  sampleIntervalMs?: number;
  /** Orders per page of the Orders lists. @default 50 */
  pageSize?: number;
  /** Most dead letters a dead-letter view peeks. @default `DEAD_LETTER_PEEK_LIMIT` (200) */
  deadLetterPeekLimit?: number;
}

/** A running console. */
export interface RunningConsole {
  /** The address to open; with `?token=…` when a token is required (print it once). */
  readonly url: string;
  /** The token, when the console listens beyond loopback. */
  readonly token: string | undefined;
  readonly writable: boolean;
  close(): Promise<void>;
}

const WINDOW_MS = 15 * 60_000;
const STATIC = {
  'console.js': {
    type: 'text/javascript; charset=utf-8',
    text: readFileSync(new URL('./static/console.js', import.meta.url), 'utf8'),
  },
  'console.css': {
    type: 'text/css; charset=utf-8',
    text: readFileSync(new URL('./static/console.css', import.meta.url), 'utf8'),
  },
} as const;

/**
 * Starts the operator console: server-rendered pages over the CLI's own modules, with live regions a small script
 * refreshes. Loopback only unless `host` says otherwise (then with a token); read-only against a deployed target
 * unless `allowWrite`.
 */
export async function startConsole(options: ConsoleOptions): Promise<RunningConsole> {
  const { target } = options;
  const host = options.host ?? '127.0.0.1';
  const loopback = isLoopbackHost(host);
  const token = loopback ? undefined : newToken();
  const writable = target.kind === 'emulator' || options.allowWrite === true;
  const readOnlyReason = writable
    ? undefined
    : 'the target is a deployed system; start the console with --allow-write to change it';
  const data = new ConsoleData(target, options.deadLetterPeekLimit);
  const pageSize = options.pageSize ?? 50;
  const sampler = new Sampler({
    readBacklog: () => data.backlog(),
    readApplied: target.telemetry ? () => target.telemetry!.appliedTotal() : undefined,
    intervalMs: options.sampleIntervalMs,
    windowMs: WINDOW_MS,
  });
  const redact = redactor(target.settings.app, token ? [token] : []);
  const allowedHosts = new Set<string>();
  const app = new Hono<{ Variables: GuardVariables }>();

  app.get('/static/:file', (c) => {
    const file = STATIC[c.req.param('file') as keyof typeof STATIC];
    return file ? c.body(file.text, 200, { 'content-type': file.type, 'cache-control': 'no-cache' }) : c.notFound();
  });
  app.use('*', async (c, next) => {
    await next();
    c.header(
      'content-security-policy',
      "default-src 'self'; style-src 'self'; script-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'",
    );
    c.header('x-content-type-options', 'nosniff');
    c.header('referrer-policy', 'no-referrer');
  });
  app.use(
    '*',
    consoleGuard({
      token,
      allowedHosts: loopback ? allowedHosts : undefined,
      writable,
      readOnlyReason: readOnlyReason ?? '',
    }),
  );

  /** Renders a page (or only its live region with `?live=1`), secrets taken out. */
  const render = async (
    c: Context<{ Variables: GuardVariables }>,
    frame: Omit<PageFrame, 'targetLabel' | 'readOnly' | 'flash'>,
    content: Html,
    liveOnly?: Html,
  ) => {
    const session = c.get('session');
    const body =
      c.req.query('live') === '1' && liveOnly !== undefined
        ? await liveOnly
        : await page(
            { ...frame, targetLabel: target.label, readOnly: readOnlyReason, flash: session.flash.splice(0) },
            content,
          );
    return c.html(redact(String(body)));
  };
  const settle = async <T>(work: () => Promise<T>): Promise<T | { error: unknown }> => {
    try {
      return await work();
    } catch (error) {
      return { error };
    }
  };
  const note = (session: ConsoleSession, kind: 'done' | 'error', text: string) =>
    session.flash.push({ kind, text: redact(text) });
  const form = async (c: Context) => (await c.req.parseBody()) as Record<string, string | undefined>;

  app.get('/', async (c) => {
    const region = async () =>
      overview({
        sessions: await settle(() => data.sessions(0)),
        waiting: await settle(() => data.waitingCounts()),
        points: sampler.series(),
        windowMs: WINDOW_MS,
        samplingError: sampler.lastError,
        hasApplied: sampler.hasApplied,
        alerts: target.telemetry?.recentAlerts(),
        kind: target.kind,
      });
    const content = await region();
    return render(
      c,
      { title: 'Overview', section: 'overview' },
      html`<h1>Overview</h1>${live('overview', '/?live=1', content)}`,
      content,
    );
  });

  app.get('/dead-letters', async (c) => {
    const q: DeadLetterQuery = {
      queue: deadLetterEntity(c.req.query('queue')),
      reason: c.req.query('reason') ?? '',
      order: c.req.query('order') ?? '',
    };
    const list = deadLetterList(
      await settle(() => data.deadLetters(q.queue, { reason: q.reason || undefined, orderId: q.order || undefined })),
      q,
    );
    const self = `/dead-letters?${new URLSearchParams({ queue: q.queue, reason: q.reason, order: q.order, live: '1' })}`;
    return render(
      c,
      { title: 'Dead letters', section: 'dead-letters' },
      html`<h1>Dead letters</h1>${deadLetterFilters(q)}${live('dead-letters', self, list)}${purgeForm(q.queue, c.get('session').csrf, writable)}`,
      list,
    );
  });

  app.get('/dead-letters/:queue/:sequenceNumber', async (c) => {
    const { queue, sequenceNumber } = c.req.param();
    const detail = await settle(() => data.deadLetter(queue, sequenceNumber));
    return render(
      c,
      { title: `Dead letter #${sequenceNumber}`, section: 'dead-letters' },
      deadLetterDetail(queue, detail, c.get('session').csrf, writable),
    );
  });

  app.post('/dead-letters/:queue/:sequenceNumber/resubmit', async (c) => {
    const { queue, sequenceNumber } = c.req.param();
    const body = await form(c);
    const session = c.get('session');
    try {
      const report = await data.resubmit(queue, sequenceNumber, body.mode === 'edited' ? (body.body ?? '') : undefined);
      const sent = report.resubmitted[0];
      if (!sent) {
        note(
          session,
          'error',
          report.gone.length > 0
            ? `#${sequenceNumber} left the dead-letter queue meanwhile (resubmitted or purged elsewhere).`
            : `No dead letter #${sequenceNumber} on ${queue}.`,
        );
        return c.redirect(`/dead-letters?queue=${encodeURIComponent(queue)}`, 303);
      }
      note(
        session,
        'done',
        `Resubmitted #${sent.sequenceNumber} ${sent.entryId} to session ${sent.sessionId || '–'} as ${sent.messageId}${body.mode === 'edited' ? ' with the corrected body' : ' as it was'}. This page follows the order.`,
      );
      return c.redirect(
        sent.sessionId
          ? `/orders/${encodeURIComponent(sent.sessionId)}`
          : `/dead-letters?queue=${encodeURIComponent(queue)}`,
        303,
      );
    } catch (error) {
      note(session, 'error', `Not resubmitted: ${errorText(error)}`);
      return c.redirect(`/dead-letters/${encodeURIComponent(queue)}/${encodeURIComponent(sequenceNumber)}`, 303);
    }
  });

  app.post('/dead-letters/:queue/purge', async (c) => {
    const queue = c.req.param('queue');
    const body = await form(c);
    const session = c.get('session');
    if (body.confirm !== queue) {
      note(session, 'error', `Not purged: type ${queue} to confirm.`);
    } else {
      try {
        const { purged, orders } = await data.purge(queue);
        note(session, 'done', `Purged ${purged} dead letter(s) from ${queue}/$DeadLetterQueue.`);
        // A subscription's dead letters are events a downstream did not take: no order waits on them.
        for (const { orderId, view, error } of subscriptionOf(queue) ? [] : orders) {
          const where = view
            ? `last applied sequence ${view.lastSequence}, ${view.parked.length} parked`
            : error
              ? `cannot be read (${error})`
              : 'nothing of it exists';
          note(
            session,
            'done',
            `Order ${orderId}: ${where}; held at a purged sequence it waits there (rule 10) until a corrected entry comes in a new ledger.`,
          );
        }
      } catch (error) {
        note(session, 'error', `Purge failed: ${errorText(error)}`);
      }
    }
    return c.redirect(`/dead-letters?queue=${encodeURIComponent(queue)}`, 303);
  });

  app.get('/orders', async (c) => {
    const id = c.req.query('id')?.trim();
    if (id) return c.redirect(`/orders/${encodeURIComponent(id)}`, 303);
    const wanted = c.req.query('tab');
    // The page opens on the orders that changed last: never empty while the system runs.
    const tab = isOrderTab(wanted) ? wanted : OrderTab.Recent;
    const after = c.req.query('after') || undefined;
    const pageNumber = Math.max(1, Number.parseInt(c.req.query('page') ?? '1', 10) || 1);
    const list = orderList(tab, await settle(() => data.orders(tab, after, pageSize)), pageNumber);
    const self = `/orders?${new URLSearchParams({ tab, ...(after && { after }), page: String(pageNumber), live: '1' })}`;
    return render(
      c,
      { title: 'Orders', section: 'orders' },
      html`<h1>Orders</h1>${orderTabs(tab)}${live('orders', self, list)}`,
      list,
    );
  });

  app.get('/orders/:orderId', async (c) => {
    const orderId = c.req.param('orderId');
    const detail = orderDetail(orderId, await settle(() => data.order(orderId)), c.get('session').csrf, writable);
    return render(
      c,
      { title: `Order ${orderId}`, section: 'orders' },
      html`<h1>Order ${orderId}</h1>${orderTabs(undefined, orderId)}${live('order', `/orders/${encodeURIComponent(orderId)}?live=1`, detail)}`,
      detail,
    );
  });

  app.post('/orders/:orderId/rejected/:sequence/resubmit', async (c) => {
    const { orderId, sequence } = c.req.param();
    const body = await form(c);
    const session = c.get('session');
    try {
      const sent = await data.resubmitRejected(orderId, Number(sequence), body.body ?? '');
      note(
        session,
        'done',
        `Resubmitted the corrected entry ${sent.entryId} to session ${sent.sessionId} as ${sent.messageId}${sent.correlationId ? ` (correlationId ${sent.correlationId})` : ' without a correlationId (none could be read)'}.`,
      );
    } catch (error) {
      note(session, 'error', `Not resubmitted: ${errorText(error)}`);
    }
    return c.redirect(`/orders/${encodeURIComponent(orderId)}`, 303);
  });

  app.get('/outbox', async (c) => {
    const order = c.req.query('order') ?? '';
    const list = outboxList(
      await settle(() => data.outbox({ orderId: order || undefined })),
      c.get('session').csrf,
      writable,
    );
    const self = `/outbox?${new URLSearchParams({ order, live: '1' })}`;
    return render(
      c,
      { title: 'Outbox', section: 'outbox' },
      html`<h1>Outbox</h1><p class="note">The relay's lag and the orders on hold (<code>convoy outbox list</code>). An order whose target kept failing is held so it does not hold the others; the hold timer releases it when its next attempt is due (at most five minutes after the last one). Releasing it now (<code>convoy outbox retry</code>) delivers the events behind it in order to the held target(s), then deletes the hold.</p>${outboxFilters(order)}${live('outbox', self, list)}${discardForm(order, c.get('session').csrf, writable)}`,
      list,
    );
  });

  app.post('/outbox/:orderId/release', async (c) => {
    const orderId = c.req.param('orderId');
    const session = c.get('session');
    try {
      const report = await data.releaseHold(orderId);
      note(
        session,
        'done',
        `Released the hold of ${orderId}: ${report.delivered['order-events']} to order-events, ${report.delivered.webhook} to the webhook (${report.rounds} round(s)).`,
      );
    } catch (error) {
      note(session, 'error', `Hold of ${orderId} not released: ${errorText(error)}`);
    }
    return c.redirect(`/outbox?order=${encodeURIComponent(orderId)}`, 303);
  });

  app.post('/outbox/:orderId/discard', async (c) => {
    const orderId = c.req.param('orderId');
    const body = await form(c);
    const session = c.get('session');
    if (body.confirm !== orderId) {
      note(session, 'error', `Not discarded: type ${orderId} to confirm.`);
    } else {
      try {
        const report = await data.discardHold(orderId, body.reason ?? '');
        note(
          session,
          'done',
          `Discarded the hold of ${orderId}: ${report.records} held record(s) dropped, audit ${report.audits.join(', ')}.`,
        );
      } catch (error) {
        note(session, 'error', `Hold of ${orderId} not discarded: ${errorText(error)}`);
      }
    }
    return c.redirect(`/outbox?order=${encodeURIComponent(orderId)}`, 303);
  });

  app.onError((error, c) => c.text(redact(`The console failed: ${errorText(error)}`), 500));

  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: options.port ?? 7072, hostname: host }, () => resolve(s));
    s.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  for (const name of ['127.0.0.1', 'localhost', '[::1]']) allowedHosts.add(`${name}:${port}`);
  sampler.start();
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/${token ? `?token=${token}` : ''}`,
    token,
    writable,
    async close() {
      await sampler.stop();
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
    },
  };
}
