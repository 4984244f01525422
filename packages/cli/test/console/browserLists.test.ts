import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Entry } from 'ledger-convoy/core';
import { until } from '../../../../test/support/serviceBusWaits.js';
import { hasChromium, launchChromium } from './support/browser.js';
import { startConsoleStack, type ConsoleStack } from './support/consoleStack.js';

/** The little of the DOM the page conditions read (they run in the browser; the project compiles without lib dom). */
declare const document: { querySelector(selector: string): { textContent: string | null } | null };

const GUARD_MS = 45_000;
const created = (orderId: string): Entry => ({
  entryId: `${orderId}-e1`,
  orderId,
  sequence: 1,
  type: 'OrderCreated',
  data: { customerId: 'c-1', currency: 'EUR' },
});
const added = (orderId: string, sequence: number): Entry => ({
  entryId: `${orderId}-e${sequence}`,
  orderId,
  sequence,
  type: 'TransactionAdded',
  data: { transactionId: `t-${sequence}`, amount: 100 },
});
const amended = (orderId: string, sequence: number): Entry => ({
  entryId: `${orderId}-e${sequence}`,
  orderId,
  sequence,
  type: 'TransactionAmended',
  data: { transactionId: 't-none', amount: 1 },
});

if (!hasChromium && !process.env.CI)
  console.warn(
    'test/console/browserLists.test.ts skipped: /usr/bin/chromium is missing (apt-get install -y chromium).',
  );

describe.skipIf(!hasChromium && !process.env.CI)(
  'the console lists orders and dead letters without knowing an id, in Chromium',
  () => {
    let stack: ConsoleStack;
    let browser: Browser;

    beforeAll(async () => {
      browser = await launchChromium();
      // Two orders per page and three dead letters peeked, so a handful of orders and dead letters page and bound.
      stack = await startConsoleStack({ pageSize: 2, deadLetterPeekLimit: 3 });
    }, 90_000);
    afterAll(async () => {
      await browser?.close();
      await stack?.close();
    });

    const postLedger = async (ledgerId: string, entries: Entry[]) => {
      const response = await fetch(`${stack.host.httpUrl}/ledgers`, {
        method: 'POST',
        body: JSON.stringify({ ledgerId, entries }),
      });
      expect(response.status).toBe(202);
    };
    const open = async (path: string): Promise<Page> => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(new URL(path, stack.console.url).toString());
      return page;
    };
    const orderIds = (page: Page) => page.locator('#orders tbody tr td:first-child a').allTextContents();

    it(
      "links the overview's count of parked orders to their list, which pages by continuation and opens each order",
      { timeout: 90_000 },
      async () => {
        // Prepare: three orders whose sequence 2 came without 1 (parked, rule 5), one order that applies.
        const parked = ['list-a', 'list-b', 'list-c'];
        await postLedger('list-L1', [...parked.map((o) => added(o, 2)), created('list-d')]);
        const overview = await open('/');
        await overview.waitForFunction(
          () => Number(document.querySelector('[data-count="parked"] strong')?.textContent) >= 3,
          undefined,
          { timeout: GUARD_MS },
        );

        // Act: follow the count, then the pages.
        await overview.click('[data-count="parked"]');
        await overview.waitForURL(/\/orders\?tab=parked$/);
        const first = await orderIds(overview);
        await overview.click('#next-page');
        await overview.waitForURL(/page=2/);
        const second = await orderIds(overview);

        // Assess: two per page, in orderId order, none twice; the last page has no next link.
        expect(first).toEqual(['list-a', 'list-b']);
        expect(second).toEqual(['list-c']);
        expect(await overview.locator('#next-page').count()).toBe(0);
        await overview.click('#orders a:has-text("list-c")');
        await overview.waitForURL(/\/orders\/list-c$/);
        expect(await overview.textContent('h1')).toBe('Order list-c');
        expect(await overview.textContent('#order')).toContain('list-c-e2');
        // The Orders page opens on the most recent orders.
        await overview.goto(new URL('/orders', stack.console.url).toString());
        expect(await overview.locator('nav.tabs a[aria-current="page"]').textContent()).toBe('Most recent');
        expect((await orderIds(overview)).length).toBe(2);
        await overview.close();
      },
    );

    it(
      'peeks a bounded number of dead letters and filters them in memory; an order page shows only its own',
      { timeout: 90_000 },
      async () => {
        // Prepare: four orders each dead-letter their sequence 2 (an amendment of nothing, rule 7).
        const orders = ['dl-a', 'dl-b', 'dl-c', 'dl-d'];
        await postLedger(
          'dl-L1',
          orders.flatMap((o) => [created(o), amended(o, 2)]),
        );
        await until(async () => (await fetch(`${stack.host.httpUrl}/orders/dl-d`)).ok, 'the orders applied');
        const page = await open('/dead-letters');
        await page.waitForSelector('#dead-letter-bound', { timeout: GUARD_MS });

        // Assess: three peeked, said so; a filter narrows what was peeked.
        expect(await page.textContent('#dead-letter-count')).toMatch(/^3 dead letter\(s\)/);
        const shown = await page.locator('#dead-letters tbody tr td:nth-child(4)').allTextContents();
        expect(shown).toHaveLength(3);
        await page.goto(new URL(`/dead-letters?order=${shown[0]}`, stack.console.url).toString());
        expect(await page.textContent('#dead-letter-count')).toMatch(
          new RegExp(`^1 dead letter\\(s\\) on orders/\\$DeadLetterQueue of order ${shown[0]}`),
        );
        await page.goto(new URL(`/orders/${shown[0]}`, stack.console.url).toString());
        const own = await page
          .locator('#order h2:has-text("Dead letters of this order") + div tbody tr')
          .allTextContents();
        expect(own).toHaveLength(1);
        expect(own[0]).toContain(`${shown[0]}-e2`);
        await page.close();
      },
    );

    it(
      'never refreshes a live region while its previous refresh is still on the way',
      { timeout: 60_000 },
      async () => {
        const page = await browser.newPage();
        await page.clock.install();
        const held: Route[] = [];
        await page.route(/[?&]live=1/, (route) => void held.push(route));
        await page.goto(new URL('/orders?tab=recent', stack.console.url).toString());

        // Act: ten refresh periods pass while the first refresh gets no answer.
        await page.clock.runFor(3_000);
        await until(() => held.length === 1, 'the first refresh');
        await page.clock.runFor(30_000);

        // Assess: still one; once answered, the next comes a period later.
        expect(held).toHaveLength(1);
        await held[0]!.continue();
        await page.waitForFunction(() => document.querySelector('#orders') !== null);
        await page.clock.runFor(3_000);
        await until(() => held.length === 2, 'the second refresh');
        await held[1]!.continue();
        await page.close();
      },
    );

    it('draws the charts with a time axis ending now and a labelled value scale', { timeout: 60_000 }, async () => {
      const page = await open('/');
      await page.waitForSelector('#chart-backlog svg');
      expect(await page.locator('#chart-backlog .time-tick').allTextContents()).toEqual([
        'now',
        '−5 min',
        '−10 min',
        '−15 min',
      ]);
      const scale = await page.locator('#chart-backlog .value-tick').allTextContents();
      expect(scale).toHaveLength(3);
      expect(scale[0]).toBe('0');
      expect(Number(scale[2])).toBeGreaterThan(0);
      expect(await page.textContent('#chart-applied figcaption')).toMatch(
        /^Entries applied: .* entries\/s now · last 15 min$/,
      );
      await page.close();
    });
  },
);
