import { describe, expect, it } from 'vitest';
import { sessionFunction, useServiceBusHost } from './support/hostHarness.js';
import { entryMessage, gate, testQueues, waitFor } from './support/serviceBusFixture.js';

const sb = useServiceBusHost({ sessionIdleTimeoutMs: 300 });

// Registered exactly like the order processor.

describe('session-enabled triggers in the local host', () => {
  it('applies each session strictly in order, one message at a time, and logs one line per message', async () => {
    // Prepare: three orders, entries interleaved as a ledger would fan them out.
    const orders = ['o-a', 'o-b', 'o-c'];
    const sender = sb.client.createSender(testQueues.fifo);
    await sender.sendMessages([1, 2, 3, 4, 5].flatMap((sequence) => orders.map((o) => entryMessage(o, sequence))));
    await sender.close();
    const seen = new Map<string, number[]>();
    const active = new Set<string>();
    let overlap = false;
    // Act
    const lines = sb.startHost(
      sessionFunction(testQueues.fifo, async ({ messages: message, actions }) => {
        const sessionId = String(message.sessionId);
        if (active.has(sessionId)) overlap = true;
        active.add(sessionId);
        await new Promise((resolve) => setTimeout(resolve, 5));
        seen.set(sessionId, [...(seen.get(sessionId) ?? []), Number(message.applicationProperties?.sequence)]);
        active.delete(sessionId);
        await actions.complete(message);
      }),
      { maxConcurrentSessions: 2 },
    );
    // The host logs a message as processed once its handler and settlement are done: wait for that, not for the
    // handler's first step, or the last line may still be on its way.
    const processed = () => lines.filter((l) => l.msg === 'message processed');
    await waitFor(() => processed().length === 15, 15_000, '15 messages processed');
    // Assess
    for (const order of orders) expect(seen.get(order)).toEqual([1, 2, 3, 4, 5]);
    expect(overlap).toBe(false);
    expect(processed()).toHaveLength(15);
    expect(processed()[0]).toMatchObject({
      level: 20,
      function: `test-${testQueues.fifo}`,
      outcome: 'completed',
      orderId: expect.any(String),
      entryId: expect.stringMatching(/^o-[abc]-e1$/),
      sequence: 1,
      durationMs: expect.any(Number),
    });
  });

  it('hands the extension shape to the handler (JSON body, actions, trigger metadata) and honours releaseSession', async () => {
    const sender = sb.client.createSender(testQueues.release);
    await sender.sendMessages(entryMessage('o-shape', 1));
    await sender.close();
    let received: { body: unknown; metadata: unknown; lock: unknown; releasedAt: number } | undefined;
    const lines = sb.startHost(
      sessionFunction(testQueues.release, async ({ messages: message, actions }, context) => {
        const lock = await actions.renewSessionLock(String(message.sessionId));
        await actions.complete(message);
        await actions.releaseSession(String(message.sessionId));
        received = { body: message.body, metadata: context.triggerMetadata, lock, releasedAt: Date.now() };
      }),
      // An idle timeout far beyond the wait below: the session can only be let go within it because the handler asked.
      { sessionIdleTimeoutMs: 60_000 },
    );
    await waitFor(
      () => lines.some((l) => l.msg === 'session released' && l.sessionId === 'o-shape'),
      20_000,
      'the release',
    );
    expect(received?.body).toEqual({ entryId: 'o-shape-e1', orderId: 'o-shape', sequence: 1 });
    expect(received?.metadata).toMatchObject({
      sessionId: 'o-shape',
      deliveryCount: 1,
      applicationProperties: { sequence: 1 },
    });
    expect(received?.lock).toEqual({ seconds: expect.stringMatching(/^\d+$/), nanos: expect.any(Number) });
    expect(Number((received?.lock as { seconds: string }).seconds) * 1000).toBeGreaterThan(Date.now());
  });

  it('runs up to maxConcurrentSessions sessions at once', async () => {
    const orders = ['c-1', 'c-2', 'c-3', 'c-4'];
    const sender = sb.client.createSender(testQueues.concurrency);
    await sender.sendMessages(orders.flatMap((o) => [entryMessage(o, 1), entryMessage(o, 2)]));
    await sender.close();
    let active = 0;
    let peak = 0;
    let done = 0;
    const release = gate();
    const lines = sb.startHost(
      sessionFunction(testQueues.concurrency, async ({ messages: message, actions }) => {
        active += 1;
        peak = Math.max(peak, active);
        await release.promise;
        active -= 1;
        await actions.complete(message);
        done += 1;
      }),
      { maxConcurrentSessions: 3 },
    );
    await waitFor(() => active === 3, 10_000, 'three sessions in flight');
    // A slot asks for a session when the host starts and again after each session it lets go (a short idle timeout
    // may end one early). With three slots in handlers, accepts = 3 + releases proves there is no fourth slot about
    // to start a fourth session: no pause is needed to see one.
    const count = (msg: string) => lines.filter((l) => l.msg === msg).length;
    expect(count('accepting a session')).toBe(3 + count('session released'));
    expect(active).toBe(3);
    release.open();
    await waitFor(() => done === 8, 10_000, 'all messages');
    expect(peak).toBe(3);
  });

  it('renews the session lock while a handler outlasts the lock duration (5 s)', async () => {
    const sender = sb.client.createSender(testQueues.renewal);
    await sender.sendMessages(entryMessage('r-1', 1));
    await sender.close();
    let settled: string | undefined;
    const lines = sb.startHost(
      sessionFunction(testQueues.renewal, async ({ messages: message, actions }) => {
        await new Promise((resolve) => setTimeout(resolve, 6_500));
        await actions.complete(message);
        settled = 'completed';
      }),
      { maxAutoLockRenewalDurationMs: 60_000 },
    );
    await waitFor(() => lines.some((l) => l.msg === 'message processed'), 15_000, 'the slow message');
    expect(settled).toBe('completed');
    expect(lines.find((l) => l.msg === 'message processed')).toMatchObject({ outcome: 'completed', deliveryCount: 0 });
  }, 20_000);

  it('drains on close: the in-flight message finishes and settles, nothing new starts', async () => {
    const sender = sb.client.createSender(testQueues.drainSessions);
    await sender.sendMessages([entryMessage('d-1', 1), entryMessage('d-1', 2)]);
    const hold = gate();
    const started: number[] = [];
    const completed: number[] = [];
    sb.startHost(
      sessionFunction(testQueues.drainSessions, async ({ messages: message, actions }) => {
        const sequence = Number(message.applicationProperties?.sequence);
        started.push(sequence);
        await hold.promise;
        await actions.complete(message);
        completed.push(sequence);
      }),
    );
    await waitFor(() => started.length === 1, 10_000, 'the first message');
    // Closing signals the trigger at once (before its first await), so the handler finishes after the close began.
    const closing = sb.closeHost();
    hold.open();
    await closing;
    expect(completed).toEqual([1]);
    expect(started).toEqual([1]);
    // The first entry is gone for good; the second still waits in its session.
    expect(sb.fixture.sessionDepth(testQueues.drainSessions, 'd-1')).toBe(1);
    await sender.close();
  });
});
