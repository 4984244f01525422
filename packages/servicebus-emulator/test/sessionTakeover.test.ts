import rhea from 'rhea';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Broker } from '../src/broker/broker.js';
import type { Consumer } from '../src/broker/consumer.js';
import type { AcceptedSession } from '../src/broker/sessionCoordinator.js';
import { parseMessage } from '../src/broker/wireMessage.js';
import { loadConfig } from '../src/config.js';
import type { BrokerError } from '../src/errors/brokerError.js';
import { MemoryStore } from '../src/store/memoryStore.js';
import { configWith, queue } from './helpers.js';

/** An in-memory receiving link: takes what it is given, remembers a lost session. */
function fakeConsumer(id: string, credit: number): Consumer & { got: number; lost: string[] } {
  return {
    id,
    mode: 'peekLock',
    sessionId: undefined,
    got: 0,
    lost: [],
    credit() {
      return credit - this.got;
    },
    deliver() {
      this.got++;
    },
    sessionLost(e: BrokerError) {
      this.lost.push(e.code);
    },
  };
}

/** Collects the answers of one accept. */
function answers(): { list: (AcceptedSession | BrokerError)[]; done: (r: AcceptedSession | BrokerError) => void } {
  const list: (AcceptedSession | BrokerError)[] = [];
  return { list, done: (r) => list.push(r) };
}

describe('taking over a session whose lock ran out before its expiry timer fired', () => {
  afterEach(() => vi.useRealTimers());

  it('hands the session to the new holder only, and tells the old holder it lost it', async () => {
    // Prepare: H holds session X with one of its two messages locked; W2 waits for a next session (none is free).
    const broker = new Broker(
      loadConfig(configWith([queue('take', { RequiresSession: true, LockDuration: 'PT1M' })])),
      new MemoryStore(),
    );
    const entity = broker.queueFor('take');
    const sessions = entity.sessions;
    if (!sessions) throw new Error('session entity expected');
    for (const body of ['x1', 'x2'])
      entity.enqueue(parseMessage(Buffer.from(rhea.message.encode({ body, group_id: 'X' } as never))), Date.now());
    const h = fakeConsumer('h', 1);
    const w1 = fakeConsumer('w1', 0);
    const w2 = fakeConsumer('w2', 0);
    for (const c of [h, w1, w2]) entity.addConsumer(c);
    sessions.accept(undefined, h, 60_000, () => {});
    await Promise.resolve();
    expect(h.got).toBe(1);
    const waiting = answers();
    const cancelWaiting = sessions.accept(undefined, w2, 60_000, waiting.done);

    // Act: the clock passes H's lock (its expiry timer has not run yet) and W1 asks for the next session.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 61_000);
    const taking = answers();
    sessions.accept(undefined, w1, 60_000, taking.done);

    // Assess: W1 got X; W2 still waits; H was told; X has one holder.
    expect(taking.list).toMatchObject([{ sessionId: 'X' }]);
    expect(waiting.list).toEqual([]);
    expect(h.lost).toEqual(['SessionLockLost']);
    expect(sessions.list().map((s) => [s.id, s.holder])).toEqual([['X', 'w1']]);
    cancelWaiting();
    broker.close();
  });
});
