/**
 * The host's session semantics, point by point, as the in-process host reproduces them (packages/local-host/README.md, "What it reproduces"). Sources: Azure.Messaging.ServiceBus `SessionReceiverManager` (receive loop, idle
 * close, release), `ReceiverManager` (abandon after a failed handler), `ServiceBusProcessor.ReconcileConcurrencyAsync`
 * (accept limit), and the WebJobs extension's `ServiceBusListener` (releaseSession after the function returns; the lock
 * token and the session forgotten in the `finally` after the function returned, so its gRPC `SettlementService`
 * answers a later action `FailedPrecondition` "LockToken … not found." / "SessionId … not found."): azure-sdk-for-net
 * `sdk/servicebus/Microsoft.Azure.WebJobs.Extensions.ServiceBus/src/Listeners/ServiceBusListener.cs` and `src/Grpc/SettlementService.cs`.
 */
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { SETTLEMENT_STATUS } from '../src/servicebus/messageActions.js';
import type { LocalServiceBusMessageActions } from '../src/servicebus/messageActions.js';
import { acceptLimit } from '../src/servicebus/sessionTrigger.js';
import { sessionFunction, useServiceBusHost } from './support/hostHarness.js';
import { entryMessage, gate, testQueues, waitFor } from './support/serviceBusFixture.js';

const sb = useServiceBusHost();

const accepted = (lines: Record<string, unknown>[], sessionId: string) =>
  lines.filter((l) => l.msg === 'session accepted' && l.sessionId === sessionId).length;

async function send(queueName: string, ...messages: ReturnType<typeof entryMessage>[]): Promise<void> {
  const sender = sb.client.createSender(queueName);
  await sender.sendMessages(messages);
  await sender.close();
}

describe('the in-process host hands sessions on as the real host does', () => {
  it('starts the idle wait at the receive after the handler returns, not while the handler runs', async () => {
    // Prepare: an idle timeout far shorter than the first handler, and the second message sent while it runs. After
    // the handler, the next receive must get that message (already in the session) within the idle timeout: one
    // second is far above a delivery's round trip on any machine, where 200 ms is not on a loaded one.
    const idleMs = 1_000;
    await send(testQueues.idle, entryMessage('idle-1', 1));
    const seen: number[] = [];
    const lines = sb.startHost(
      sessionFunction(testQueues.idle, async ({ messages: message, actions }) => {
        const sequence = Number(message.applicationProperties?.sequence);
        if (sequence === 1) {
          const started = Date.now();
          await send(testQueues.idle, entryMessage('idle-1', 2));
          // At least twice the idle timeout inside the handler: a lower bound, true on any machine.
          while (Date.now() - started < 2 * idleMs) await new Promise((resolve) => setTimeout(resolve, idleMs));
        }
        await actions.complete(message);
        seen.push(sequence);
      }),
      { sessionIdleTimeoutMs: idleMs },
    );
    // Act: both messages processed, and the session let go after the last one.
    await waitFor(
      () => lines.some((l) => l.msg === 'session released' && l.sessionId === 'idle-1'),
      20_000,
      'the idle release',
    );
    // Assess: one accept served both messages: the handler's time did not count as idle.
    expect(seen).toEqual([1, 2]);
    expect(accepted(lines, 'idle-1')).toBe(1);
  });

  it('closes a released session once the running handler returns, and takes its next message in a new accept', async () => {
    await send(testQueues.handOff, entryMessage('hand-1', 1), entryMessage('hand-1', 2));
    const hold = gate();
    let holding = false;
    const lines = sb.startHost(
      sessionFunction(testQueues.handOff, async ({ messages: message, actions }) => {
        if (Number(message.applicationProperties?.sequence) === 1) {
          await actions.releaseSession(String(message.sessionId));
          // Still running after the release, for as long as the test wants: the session must not close under it.
          holding = true;
          await hold.promise;
        }
        await actions.complete(message);
      }),
      // A long idle timeout: only the release can let the session go between the two messages.
      { sessionIdleTimeoutMs: 60_000 },
    );
    const trail = () =>
      lines
        .filter(
          (l) =>
            (l.sessionId ?? l.orderId) === 'hand-1' &&
            ['session accepted', 'message processed', 'session released'].includes(String(l.msg)),
        )
        .map((l) =>
          l.msg === 'message processed'
            ? `processed ${String(l.sequence)} ${String(l.outcome)}`
            : String(l.msg).replace('session ', ''),
        );
    await waitFor(() => holding, 20_000, 'the first handler holding after its release');
    expect(trail()).toEqual(['accepted']);
    hold.open();
    await waitFor(
      () => trail().includes('processed 2 completed') && trail().includes('released'),
      20_000,
      'the second message and the release',
    );
    // Assess: the first message completed on the session it had released (so the session was still open), the
    // session was let go only after that, and the second message came in an accept of its own. The release and the
    // second accept are two workers' lines, so their order is not asserted.
    const trailed = trail();
    expect(trailed.slice(0, 2)).toEqual(['accepted', 'processed 1 completed']);
    expect(trailed.filter((t) => t === 'released')).toHaveLength(1);
    expect(trailed.filter((t) => t === 'accepted')).toHaveLength(2);
    expect(trailed.lastIndexOf('accepted')).toBeLessThan(trailed.indexOf('processed 2 completed'));
  });

  it('abandons the message of a handler that throws (auto-complete off) and stays on the session, order kept', async () => {
    await send(testQueues.failing, entryMessage('fail-1', 1), entryMessage('fail-1', 2));
    const seen: string[] = [];
    const lines = sb.startHost(
      sessionFunction(testQueues.failing, async ({ messages: message, actions }) => {
        const sequence = Number(message.applicationProperties?.sequence);
        seen.push(`${sequence}/${message.deliveryCount}`);
        if (sequence === 1 && message.deliveryCount === 0) throw new Error('boom');
        await actions.complete(message);
      }),
      { sessionIdleTimeoutMs: 60_000 },
    );
    await waitFor(() => seen.length === 3, 20_000, 'three invocations');
    expect(seen).toEqual(['1/0', '1/1', '2/0']);
    expect(lines.find((l) => l.msg === 'message processed' && l.failed === true)).toMatchObject({
      outcome: 'abandoned',
    });
    expect(accepted(lines, 'fail-1')).toBe(1);
  });

  it('fails a settlement or a session release made after the handler returned, as the real host forgets both then', async () => {
    // Source: ServiceBusListener.ProcessSessionMessageAsync removes the lock token (ActionsCache) and the session
    // (SessionActionsCache) in its `finally`; SettlementService answers FailedPrecondition for either afterwards.
    await send(testQueues.lateActions, entryMessage('late-1', 1));
    let kept: { message: ServiceBusReceivedMessage; actions: LocalServiceBusMessageActions } | undefined;
    const lines = sb.startHost(
      sessionFunction(testQueues.lateActions, async ({ messages: message, actions }) => {
        kept = { message, actions };
      }),
      { sessionIdleTimeoutMs: 60_000 },
    );
    await waitFor(
      () => lines.some((l) => l.msg === 'message processed but not settled' && l.orderId === 'late-1'),
      20_000,
      'the invocation to end',
    );
    const { message, actions } = kept as NonNullable<typeof kept>;
    const lockToken = String(message.lockToken);
    const notFound = (details: string) => ({
      name: 'SettlementServiceError',
      code: SETTLEMENT_STATUS.FAILED_PRECONDITION,
      details,
    });
    await expect(actions.complete(message)).rejects.toMatchObject(notFound(`LockToken ${lockToken} not found.`));
    await expect(actions.deadletter(message)).rejects.toMatchObject(notFound(`LockToken ${lockToken} not found.`));
    await expect(actions.releaseSession('late-1')).rejects.toMatchObject(notFound('SessionId late-1 not found.'));
    await expect(actions.setSessionState('late-1', new Uint8Array([1]))).rejects.toMatchObject(
      notFound('SessionId late-1 not found.'),
    );
    // The session was not released by the late call: it is still held, with its one message locked.
    expect(lines.filter((l) => l.msg === 'session released' && l.sessionId === 'late-1')).toEqual([]);
  });

  it("leaves the message of a handler that returns without settling locked, delivers the session's next one, and warns naming the function", async () => {
    // Source: ServiceBusListener settles nothing itself when auto-complete is off (CompleteProcessingMessageAsync),
    // and the session processor receives on from the same session: the unsettled message keeps its lock.
    await send(testQueues.unsettled, entryMessage('loose-1', 1), entryMessage('loose-1', 2));
    const seen: string[] = [];
    const registration = sessionFunction(testQueues.unsettled, async ({ messages: message, actions }) => {
      const sequence = Number(message.applicationProperties?.sequence);
      seen.push(`${sequence}/${message.deliveryCount}`);
      if (sequence !== 1) await actions.complete(message);
    });
    const lines = sb.startHost(registration, { sessionIdleTimeoutMs: 60_000 });
    await waitFor(() => seen.length === 2, 20_000, 'both invocations');
    // Assess: the second message came while the first was still locked in the same accept (not given back first).
    expect(seen).toEqual(['1/0', '2/0']);
    expect(accepted(lines, 'loose-1')).toBe(1);
    // The first message is still in its session (locked, not settled); the second was completed.
    await waitFor(
      () => sb.fixture.sessionDepth(testQueues.unsettled, 'loose-1') === 1,
      20_000,
      'the second completion',
    );
    const warning = lines.find((l) => l.msg === 'message processed but not settled');
    expect(warning).toMatchObject({ level: 40, function: registration.name, outcome: 'unsettled', sequence: 1 });
    expect(String(warning?.note)).toContain(registration.name);
  });

  it('keeps at most min(maxConcurrentSessions, 2 × processors) session accepts pending at once', async () => {
    // More slots than the limit allows to accept at once on any machine.
    const slots = 4 * availableParallelism();
    const limit = acceptLimit(slots, availableParallelism());
    expect(limit).toBe(2 * availableParallelism());
    const held = gate();
    let inHandler = 0;
    const orders = Array.from({ length: limit + 2 }, (_, i) => `acc-${i}`);
    const lines = sb.startHost(
      sessionFunction(testQueues.accepts, async ({ messages: message, actions }) => {
        inHandler += 1;
        await held.promise;
        await actions.complete(message);
      }),
      { maxConcurrentSessions: slots, sessionIdleTimeoutMs: 60_000 },
    );
    await send(testQueues.accepts, ...orders.map((o) => entryMessage(o, 1)));
    // Every order is taken by a slot of its own while the handlers hold them: accepts went on past the limit.
    await waitFor(() => inHandler === orders.length, 20_000, 'every order in a handler');
    held.open();
    const pending = lines.filter((l) => l.msg === 'accepting a session').map((l) => Number(l.acceptsPending));
    expect(Math.max(...pending)).toBe(limit);
    expect(acceptLimit(8, 1)).toBe(2);
    expect(acceptLimit(2, 4)).toBe(2);
  });
});
