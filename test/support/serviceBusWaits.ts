import type { ServiceBusReceivedMessage, ServiceBusReceiver, ServiceBusSessionReceiver } from '@azure/service-bus';
import Long from 'long';

/**
 * How long a test waits for something it knows will happen (a message that is already on the broker, a state the
 * broker reaches by itself). Only a hang guard: every wait below ends as soon as its condition holds, so this is
 * never a pace, and it sits far above what any machine needs while staying under vitest's 30 s test timeout. The
 * waits measure on the monotonic clock, so a test that freezes or moves `Date` (the emulators' clock) does not stop them.
 */
export const PATIENCE_MS = 10_000;

type AnyReceiver = ServiceBusReceiver | ServiceBusSessionReceiver;

/**
 * Receives until exactly `count` messages came, in arrival order. A receive returns early with what it has, so
 * one short batch proves nothing; fails (naming what came) when the rest does not arrive within {@link PATIENCE_MS}.
 */
export async function receiveExactly(
  receiver: AnyReceiver,
  count: number,
  what = 'messages',
): Promise<ServiceBusReceivedMessage[]> {
  const deadline = performance.now() + PATIENCE_MS;
  const got: ServiceBusReceivedMessage[] = [];
  while (got.length < count) {
    const left = Math.ceil(deadline - performance.now());
    if (left <= 0)
      throw new Error(
        `received ${got.length} of ${count} ${what} within ${PATIENCE_MS} ms: ${JSON.stringify(got.map((m) => m.body))}`,
      );
    got.push(...(await receiver.receiveMessages(count - got.length, { maxWaitTimeInMs: left })));
  }
  return got;
}

/**
 * Every message the entity (or the session) holds right now — available, locked, deferred or scheduled — read from
 * the broker, so "nothing else is there" needs no waiting. Always from the first sequence number: without one the
 * SDK goes on from a peek cursor it shares between the receivers of an entity on one client.
 */
export async function peekEverything(receiver: AnyReceiver, max = 1_000): Promise<ServiceBusReceivedMessage[]> {
  return receiver.peekMessages(max, { fromSequenceNumber: Long.fromNumber(0) });
}

/**
 * The next message while the entity or session still holds one, else undefined: "drained" is read from the broker
 * instead of guessed from a quiet spell. A message that is there but never comes (locked by someone) ends it too,
 * after {@link PATIENCE_MS}.
 */
export async function nextWhileAny(receiver: AnyReceiver): Promise<ServiceBusReceivedMessage | undefined> {
  const [waiting] = await receiver.peekMessages(1, { fromSequenceNumber: Long.fromNumber(0) });
  if (!waiting) return undefined;
  const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: PATIENCE_MS });
  return message;
}

/** Polls `check` until it holds; fails after {@link PATIENCE_MS} with `what`. */
export async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = performance.now() + PATIENCE_MS;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${PATIENCE_MS} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
