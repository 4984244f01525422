import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderEventKey, orderEventSource, type Entry } from 'ledger-convoy/core';
import pino from 'pino';
import { startCosmosDBHost, type CosmosDBHost } from '@ledger-convoy/local-host';
import type { RegistrationOf } from '@ledger-convoy/local-host';
import { startWebhook } from '../../../../test/outbox/support/webhookServer.js';
import { until } from '../../../../test/support/serviceBusWaits.js';
import { setEnv } from '../../../../test/outbox/support/eventually.js';
import { startConsoleStack, type ConsoleStack } from './support/consoleStack.js';
import { hasChromium, launchChromium } from './support/browser.js';

/** The little of the DOM the page conditions read (they run in the browser; the project compiles without lib dom). */
declare const document: {
  querySelector(selector: string): { textContent: string | null; getAttribute(name: string): string | null } | null;
  documentElement: { scrollWidth: number; clientWidth: number };
};

/** The screenshots of docs/operations.md: written to docs/ with CONSOLE_SCREENSHOTS=docs, else to a scratch directory (a run leaves the tree clean). */
const shots =
  process.env.CONSOLE_SCREENSHOTS === 'docs'
    ? fileURLToPath(new URL('../../../../docs/', import.meta.url))
    : mkdtempSync(join(tmpdir(), 'convoy-console-'));
const docs = (name: string) => join(shots, name);
/** The hang guard of every page condition (the relay's hold waits out its retry budget first). */
const GUARD_MS = 45_000;

const created = (orderId: string): Entry => ({
  entryId: `${orderId}-e1`,
  orderId,
  sequence: 1,
  type: 'OrderCreated',
  data: { customerId: 'c-7', currency: 'EUR' },
});
const added = (orderId: string, sequence: number, transactionId: string, amount: number): Entry => ({
  entryId: `${orderId}-e${sequence}`,
  orderId,
  sequence,
  type: 'TransactionAdded',
  data: { transactionId, amount },
});
const amended = (orderId: string, sequence: number, transactionId: string, amount: number): Entry => ({
  entryId: `${orderId}-e${sequence}`,
  orderId,
  sequence,
  type: 'TransactionAmended',
  data: { transactionId, amount },
});

// Skipped without Chromium on a laptop (say so: `apt-get install chromium`); under CI a missing one fails instead.
if (!hasChromium && !process.env.CI)
  console.warn('test/console/browser.test.ts skipped: /usr/bin/chromium is missing (apt-get install -y chromium).');

describe.skipIf(!hasChromium && !process.env.CI)('the operator console in Chromium, on the whole local stack', () => {
  let stack: ConsoleStack;
  let browser: Browser;
  let webhook: Awaited<ReturnType<typeof startWebhook>>;
  let restoreEnv: () => void;
  const failing = new Set<string>();
  /** The relay's own host once the hold test restarted it. */
  let relay: CosmosDBHost | undefined;
  const relayRegistration = () =>
    stack.host.app!.functions.filter(
      (r): r is RegistrationOf<'cosmosDB'> => r.kind === 'cosmosDB' && r.name === 'outboxRelay',
    );
  const lastSequence = async (orderId: string): Promise<number | undefined> => {
    const response = await fetch(`${stack.host.httpUrl}/orders/${orderId}`);
    return response.ok ? ((await response.json()) as { lastSequence: number }).lastSequence : undefined;
  };

  beforeAll(async () => {
    browser = await launchChromium();
    // The webhook refuses the orders in `failing`; a short retry budget makes the relay hold such an order soon.
    webhook = await startWebhook({ failWhen: (body) => failing.has(body.orderId) });
    restoreEnv = setEnv({ OUTBOX_WEBHOOK_URL: webhook.url, OUTBOX_RETRY_BUDGET: '300', OUTBOX_WEBHOOK_TIMEOUT: '250' });
    stack = await startConsoleStack();
  }, 90_000);
  afterAll(async () => {
    await relay?.close();
    await browser?.close();
    await stack?.close();
    await webhook?.close();
    restoreEnv?.();
    // Draining the whole stack (and the relay's host the hold test restarted) outlasts the default on a busy machine.
  }, 90_000);

  const postLedger = async (ledgerId: string, entries: Entry[]) => {
    const response = await fetch(`${stack.host.httpUrl}/ledgers`, {
      method: 'POST',
      body: JSON.stringify({ ledgerId, entries }),
    });
    expect(response.status).toBe(202);
  };
  const open = async (path: string, viewport = { width: 1280, height: 800 }): Promise<Page> => {
    const page = await browser.newPage({ viewport });
    await page.goto(new URL(path, stack.console.url).toString());
    return page;
  };
  const liveText = (page: Page, selector: string, text: string) =>
    page.waitForFunction(([s, t]) => document.querySelector(s!)?.textContent?.includes(t!) === true, [selector, text], {
      timeout: GUARD_MS,
    });

  it('loads every page at 1280×800 and at 390×844 without horizontal scrolling', { timeout: 60_000 }, async () => {
    for (const [path, heading] of [
      ['/', 'Overview'],
      ['/dead-letters', 'Dead letters'],
      ['/orders', 'Orders'],
      ['/orders/o-none', 'Order o-none'],
      ['/outbox', 'Outbox'],
    ] as const) {
      for (const viewport of [
        { width: 1280, height: 800 },
        { width: 390, height: 844 },
      ]) {
        const page = await open(path, viewport);
        expect(await page.textContent('h1'), path).toBe(heading);
        expect(await page.locator('header nav a').allTextContents()).toEqual([
          'Overview',
          'Dead letters',
          'Orders',
          'Outbox',
        ]);
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        expect(overflow, `${path} at ${viewport.width}px scrolls sideways`).toBeLessThanOrEqual(0);
        await page.close();
      }
    }
  });

  it(
    'resubmits a poison entry with its corrected body from the page, and the order applies',
    { timeout: 90_000 },
    async () => {
      // Prepare: sequence 2 amends a transaction that does not exist (dead-lettered, rule 7); 3 parks behind it (rule 10).
      const o = 'console-o1';
      await postLedger('console-L1', [created(o), amended(o, 2, 't-1', 999), added(o, 3, 't-2', 500)]);
      const list = await open(`/dead-letters?order=${o}`);
      await liveText(list, '#dead-letters', `${o}-e2`);
      expect(await list.locator('#dead-letters').textContent()).toContain('InvalidTransition');
      await list.click(`#dead-letters a:has-text("#")`);
      await list.waitForSelector('#resubmit-edited textarea');
      await list.screenshot({ path: docs('console-dead-letter.png'), fullPage: true });

      // Act: correct the body in the page's editor and resubmit it.
      await list.fill('#resubmit-edited textarea', JSON.stringify(added(o, 2, 't-1', 1000), null, 2));
      await list.click('#resubmit-edited button');

      // Assess: the console shows the order, which applies 2 and the parked 3 behind it, live.
      await list.waitForURL(new RegExp(`/orders/${o}$`));
      expect(await list.textContent('.flash.done')).toMatch(
        new RegExp(`Resubmitted #\\d+ ${o}-e2 to session ${o} as ${o}-e2\\.r1 with the corrected body`),
      );
      await liveText(list, '[data-field="lastSequence"]', '3');
      expect(await list.textContent('[data-field="total"]')).toBe('15.00 EUR');
      await liveText(list, '#order', 'Nothing parked.');
      await list.close();
      const deadLetters = await open(`/dead-letters?order=${o}`);
      expect(await deadLetters.textContent('#dead-letter-count')).toContain('0 dead letter(s)');
      await deadLetters.close();
    },
  );

  it('releases an outbox hold from the page, and the held event is delivered', { timeout: 120_000 }, async () => {
    // Prepare: the webhook refuses the order until the relay's retry budget runs out and it holds the order (with
    // another order in the same change batch, which goes on).
    const o = 'console-o2';
    failing.add(o);
    await stack.host.cosmosDB.close();
    await postLedger('console-L2', [created(o), created('console-o2b')]);
    await until(
      async () => (await Promise.all([o, 'console-o2b'].map(lastSequence))).every((s) => s === 1),
      'both orders applied',
    );
    relay = await startCosmosDBHost({
      functions: relayRegistration(),
      settings: stack.host.settings,
      logger: pino({ level: 'silent' }),
    });
    const page = await open(`/outbox?order=${o}`);
    await page.waitForSelector(`#outbox [data-hold="${o}"]`, { timeout: GUARD_MS });
    expect(await page.textContent('#outbox')).toContain('webhook');

    // Act: the webhook is back; release the hold.
    failing.delete(o);
    await page.click('#outbox button:has-text("Release")');

    // Assess
    await page.waitForURL(new RegExp(`/outbox\\?order=${o}$`));
    expect(await page.textContent('.flash.done')).toBe(
      `Released the hold of ${o}: 0 to order-events, 1 to the webhook (1 round(s)).`,
    );
    expect(await page.textContent('#hold-count')).toBe('0 order(s) on hold');
    expect(webhook.applied).toContain(orderEventKey(orderEventSource(o), `${o}-e1`));
    await page.close();
  });

  it(
    'resubmits a corrected entry for a rejected sequence from the order page (rule 11), and the order applies',
    { timeout: 90_000 },
    async () => {
      // Prepare: 3 arrives first and parks; when 2 applies, 3 amends a transaction nobody added and is rejected.
      const o = 'console-o4';
      await postLedger('console-L5', [created(o), amended(o, 3, 't-9', 300)]);
      const page = await open(`/orders/${o}`);
      await liveText(page, '#order', 'Nothing rejected.');
      await postLedger('console-L6', [added(o, 2, 't-1', 100)]);
      await page.waitForSelector('form.rejected textarea', { timeout: GUARD_MS });
      expect(await page.textContent('form.rejected')).toContain(`${o}-e3: InvalidTransition`);
      // The form starts from the entry as it was parked.
      expect(JSON.parse(await page.inputValue('form.rejected textarea'))).toEqual(amended(o, 3, 't-9', 300));

      // Act
      await page.fill('form.rejected textarea', JSON.stringify(added(o, 3, 't-9', 300)));
      await page.click('form.rejected button');

      // Assess: numbered by rule 10, with the original ledger as correlationId; the order applies it live.
      expect(await page.textContent('.flash.done')).toBe(
        `Resubmitted the corrected entry ${o}-e3 to session ${o} as ${o}-e3.r1 (correlationId console-L5).`,
      );
      await liveText(page, '[data-field="lastSequence"]', '3');
      await liveText(page, '#order', 'Nothing rejected.');
      expect(await page.textContent('[data-field="total"]')).toBe('4.00 EUR');
      await page.close();
    },
  );

  it(
    'shows why a correction was refused and sends nothing, then resubmits the entry as is',
    { timeout: 60_000 },
    async () => {
      const o = 'console-o5';
      await postLedger('console-L7', [created(o), amended(o, 2, 't-1', 5)]);
      const list = await open(`/dead-letters?order=${o}`);
      await liveText(list, '#dead-letters', `${o}-e2`);
      await list.click('#dead-letters a:has-text("#")');
      await list.fill('#resubmit-edited textarea', JSON.stringify({ ...added(o, 2, 't-1', 5), sequence: 7 }));
      await list.click('#resubmit-edited button');
      await list.waitForSelector('.flash.error');
      expect(await list.textContent('.flash.error')).toContain(
        'Not resubmitted: The corrected entry must keep sequence 2 (not 7).',
      );
      expect(await list.inputValue('#resubmit-edited textarea')).toContain('"TransactionAmended"');

      // Resubmitted as it was, it goes back as .r1 and is dead-lettered again for the same reason, now counted.
      await list.click('#resubmit-as-is button');
      await list.waitForURL(new RegExp(`/orders/${o}$`));
      expect(await list.textContent('.flash.done')).toMatch(new RegExp(`as ${o}-e2\\.r1 as it was\\.`));
      await list.goto(new URL(`/dead-letters?order=${o}`, stack.console.url).toString());
      await liveText(list, '#dead-letters', `${o}-e2`);
      await list.click('#dead-letters a:has-text("#")');
      await list.waitForSelector('#resubmit-edited textarea');
      expect(await list.textContent('dl.props')).toMatch(new RegExp(`messageId${o}-e2\\.r1`));
      await list.close();
    },
  );

  it(
    'shows the queues, the waiting orders, the charts and the alerts as they happen on the overview',
    { timeout: 60_000 },
    async () => {
      // An entryId reused with other content: IdempotencyKeyConflict, an alert (rule 3); a gap parks an order.
      const o = 'console-o3';
      await postLedger('console-L3', [created(o), added(o, 2, 't-1', 100), added('console-o6', 2, 't-1', 100)]);
      const page = await open('/');
      // o6 waits for its sequence 1: counted live on the page, and in the list its count links to (o3's alert below
      // comes from another session).
      await page.waitForFunction(
        () => Number(document.querySelector('[data-count="parked"] strong')?.textContent) >= 1,
        undefined,
        { timeout: GUARD_MS },
      );
      const parked = await open('/orders?tab=parked');
      expect(await parked.textContent('#orders')).toContain('console-o6');
      await parked.close();
      await postLedger('console-L4', [{ ...added(o, 2, 't-1', 200) }]);
      await liveText(page, '#alerts', 'IdempotencyKeyConflict');
      await page.waitForFunction(
        () => Number(document.querySelector('#chart-applied svg')?.getAttribute('data-points')) > 2,
        undefined,
        { timeout: GUARD_MS },
      );
      await page.screenshot({ path: docs('console-overview.png'), fullPage: true });
      await page.close();
    },
  );

  it(
    'purges the dead letters after the typed and the dialog confirmation, and says where their orders stand',
    { timeout: 90_000 },
    async () => {
      const page = await open('/dead-letters');
      await liveText(page, '#dead-letter-count', 'dead letter(s)');
      expect(await page.textContent('#dead-letter-count')).not.toMatch(/^0 /);
      page.on('dialog', (dialog) => void dialog.accept());
      await page.click('details.danger summary');
      await page.fill('form.purge input[name="confirm"]', 'orders');
      await page.click('form.purge button');
      await page.waitForSelector('.flash.done');
      expect(await page.locator('.flash.done').first().textContent()).toMatch(
        /^Purged [1-9]\d* dead letter\(s\) from orders\/\$DeadLetterQueue\.$/,
      );
      expect(await page.locator('.flash.done').allTextContents()).toContainEqual(
        expect.stringMatching(/^Order console-o5: last applied sequence 1, 0 parked;/),
      );
      expect(await page.textContent('#dead-letter-count')).toMatch(/^0 dead letter\(s\)/);
      await page.close();
    },
  );
});
