import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { JITTER_FRACTION, OperationLatency } from '../src/server/operationLatency.js';
import { configWith, queue, startBus } from './helpers.js';
import type { TestBus } from './helpers.js';

describe('OperationLatency', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs an operation no earlier than the latency after it arrived, and no later than the latency plus its jitter', async () => {
    // Prepare
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const latency = new OperationLatency({ latencyMs: 100, random: () => 0.5 });
    const ran: number[] = [];
    // Act
    latency.defer({}, () => ran.push(performance.now()));
    await vi.advanceTimersByTimeAsync(104);
    // Assess
    expect(ran).toEqual([]);
    await vi.advanceTimersByTimeAsync(2);
    expect(ran).toHaveLength(1);
    expect(ran[0]).toBeGreaterThanOrEqual(105);
  });

  it("keeps a lane's operations in arrival order when a later one drew less jitter", async () => {
    // Prepare
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const draws = [0.99, 0];
    const latency = new OperationLatency({ latencyMs: 100, random: () => draws.shift() ?? 0 });
    const lane = {};
    const ran: string[] = [];
    // Act
    latency.defer(lane, () => ran.push('first'));
    latency.defer(lane, () => ran.push('second'));
    await vi.advanceTimersByTimeAsync(100 + 100 * JITTER_FRACTION);
    // Assess
    expect(ran).toEqual(['first', 'second']);
  });

  it("does not hold one lane's operation behind another lane's later one", async () => {
    // Prepare: lane a's operation draws the most jitter, lane b's none.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const draws = [0.99, 0];
    const latency = new OperationLatency({ latencyMs: 100, random: () => draws.shift() ?? 0 });
    const ran: string[] = [];
    // Act
    latency.defer({ lane: 'a' }, () => ran.push('a'));
    latency.defer({ lane: 'b' }, () => ran.push('b'));
    await vi.advanceTimersByTimeAsync(100);
    // Assess: b is due and ran; a is still waiting out its jitter.
    expect(ran).toEqual(['b']);
    await vi.advanceTimersByTimeAsync(100 * JITTER_FRACTION);
    expect(ran).toEqual(['b', 'a']);
  });

  it('runs at once without a latency', () => {
    const latency = new OperationLatency({ latencyMs: 0 });
    const ran: string[] = [];
    latency.defer({}, () => ran.push('now'));
    expect(ran).toEqual(['now']);
  });

  it('refuses a negative latency', () => {
    expect(() => new OperationLatency({ latencyMs: -1 })).toThrow(RangeError);
  });
});

describe('the broker with --latency', () => {
  const LATENCY_MS = 150;
  const Q = { plain: 'latency-plain', sessions: 'latency-sessions' };
  let bus: TestBus;

  beforeAll(async () => {
    bus = await startBus(configWith([queue(Q.plain), queue(Q.sessions, { RequiresSession: true })]), {
      latencyMs: LATENCY_MS,
    });
  });
  afterAll(async () => {
    await bus.close();
  });

  /** How long `op` took, in ms. */
  async function timed(op: () => Promise<unknown>): Promise<number> {
    const started = performance.now();
    await op();
    return performance.now() - started;
  }

  it('answers a send, a receive, a completion and a management request no earlier than the latency', async () => {
    // Prepare: the sender's and receiver's links attached (their attaches and CBS tokens answered).
    const sender = bus.client.createSender(Q.plain);
    const receiver = bus.client.createReceiver(Q.plain);
    await sender.sendMessages({ body: 'warm' });
    const [warm] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 5_000 });
    await receiver.completeMessage(warm!);
    // Act
    const send = await timed(() => sender.sendMessages({ body: 'one' }));
    let received: Awaited<ReturnType<typeof receiver.receiveMessages>> = [];
    const receive = await timed(async () => {
      received = await receiver.receiveMessages(1, { maxWaitTimeInMs: 5_000 });
    });
    const complete = await timed(() => receiver.completeMessage(received[0]!));
    const peek = await timed(() => receiver.peekMessages(1));
    // Assess
    expect(received.map((m) => m.body)).toEqual(['one']);
    for (const elapsed of [send, receive, complete, peek]) expect(elapsed).toBeGreaterThanOrEqual(LATENCY_MS);
  });

  it("answers a new connection's session accept no earlier than a token put and an attach, one after the other", async () => {
    // Prepare
    await bus.client.createSender(Q.sessions).sendMessages({ body: 'x', sessionId: 's1' });
    const other = bus.newClient();
    // Act: the put-token on $cbs, then the attach, each waits the latency.
    let sessionId: string | undefined;
    const accept = await timed(async () => {
      const receiver = await other.acceptNextSession(Q.sessions);
      sessionId = receiver.sessionId;
    });
    // Assess
    expect(sessionId).toBe('s1');
    expect(accept).toBeGreaterThanOrEqual(2 * LATENCY_MS);
  });
});
