import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalConsole } from '@ledger-convoy/local-host';
import { peekAll } from '../../src/serviceBus.js';
import type { RunningConsole } from '../../src/console/consoleServer.js';
import { startE2eStack, type E2eStack } from '../../../../test/e2e/support/e2eStack.js';
import { freePort } from './support/consoleStack.js';
import { receiveExactly } from '../../../../test/support/serviceBusWaits.js';

describe('the console overview on the embedded emulator', () => {
  let stack: E2eStack;
  let running: RunningConsole;
  beforeAll(async () => {
    // No functions: nothing consumes `orders`, so the session stays as the test leaves it.
    stack = await startE2eStack({
      serviceBusAdminPort: await freePort(),
      serviceBusAdminHttpsPort: 0,
      registrations: [],
    });
    running = await startLocalConsole(stack.host, { port: 0, sampleIntervalMs: 60_000 });
  }, 60_000);
  afterAll(async () => {
    await running?.close();
    await stack?.close();
  });

  it('lists a session of orders with its depth, its holder and when its lock expires, and the queue counts with scheduled messages', async () => {
    // Prepare: two entries in session o-held, one scheduled an hour ahead; a receiver holds the session.
    const sender = stack.bus.createSender('orders');
    await sender.sendMessages([
      { sessionId: 'o-held', messageId: 'm-1', body: { n: 1 } },
      { sessionId: 'o-held', messageId: 'm-2', body: { n: 2 } },
    ]);
    await sender.scheduleMessages(
      { sessionId: 'o-later', messageId: 'm-3', body: { n: 3 } },
      new Date(Date.now() + 3_600_000),
    );
    await sender.close();
    const receiver = await stack.bus.acceptSession('orders', 'o-held');

    try {
      // Act
      const page = await (await fetch(`${running.url}?live=1`)).text();

      // Assess
      const row = (name: string) =>
        new RegExp(`<tr><td>${name}</td><td>(\\d+)</td><td>(\\d+)</td><td>(\\d+)</td></tr>`).exec(page)?.slice(1);
      expect(row('orders')).toEqual(['2', '0', '1']);
      const session =
        /<tr><td><a href="\/orders\/o-held">o-held<\/a><\/td><td>2<\/td><td>([^<]+)<\/td><td><span title="([^"]+)">/.exec(
          page,
        );
      expect(session, page).not.toBeNull();
      expect(session![1]).not.toBe('–');
      expect(Date.parse(session![2]!)).toBeGreaterThan(Date.now());
      // In the host's process the console has the app's alerts (none yet) and its applied count.
      expect(page).toContain('No alerts since the console started');
      expect(page).toContain('<figure class="chart" id="chart-applied">');
    } finally {
      await receiver.close();
    }
  });

  it("shows the order-events topic with each subscription's backlog, sessions and dead letters, which it lists and shows but never resubmits", async () => {
    // Prepare: events of two orders on `all`; a downstream gave up on one of o-ev-2.
    const sender = stack.bus.createSender('order-events');
    await sender.sendMessages([
      { sessionId: 'o-ev-1', messageId: 'evt-a', body: { id: 'a' }, subject: 'convoy.order.created' },
      { sessionId: 'o-ev-2', messageId: 'evt-b', body: { id: 'b' }, subject: 'convoy.order.created' },
    ]);
    await sender.close();
    const receiver = await stack.bus.acceptSession('order-events', 'all', 'o-ev-2');
    const [event] = await receiveExactly(receiver, 1, 'the event of o-ev-2');
    await receiver.deadLetterMessage(event!, { deadLetterReason: 'DownstreamFailed', deadLetterErrorDescription: 'x' });
    await receiver.close();
    const path = encodeURIComponent('order-events/Subscriptions/all');
    const [dead] = await peekAll(stack.bus, 'order-events/Subscriptions/all', 'deadLetter');

    // Act
    const overview = await (await fetch(`${running.url}?live=1`)).text();
    const list = await (await fetch(`${running.url}dead-letters?queue=${path}&live=1`)).text();
    const detail = await (await fetch(`${running.url}dead-letters/${path}/${String(dead!.sequenceNumber)}`)).text();

    // Assess
    expect(overview).toContain('<h2>Topic order-events</h2>');
    expect(overview).toContain(
      `<tr><td>all</td><td>1</td><td>1</td><td><a href="/dead-letters?queue=${path}">1</a></td></tr>`,
    );
    expect(list).toContain('1 dead letter(s) on order-events/Subscriptions/all/$DeadLetterQueue');
    expect(list).toContain('DownstreamFailed');
    expect(detail).toContain('id="no-resubmit"');
    expect(detail).toContain('Dead letters of a subscription are not resubmitted');
    expect(detail).not.toContain('id="resubmit-as-is"');
  });
});
