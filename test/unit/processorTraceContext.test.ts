import { describe, expect, it } from 'vitest';
import { messageTraceparent, type Entry } from '../../src/core/index.js';
import { isTraceparent } from '../../src/core/traceContext.js';
import { entriesFor, makeHarness, messageFor, uniqueOrderId } from './support/fixtures.js';

const tp = (n: number) => `00-${String(n).padStart(32, 'a')}-${String(n).padStart(16, 'b')}-01`;

/** The message the splitter sends for `entry`, carrying `traceparent` as both SDK properties do. */
function tracedMessage(entry: Entry, traceparent: string) {
  return messageFor(entry, {
    applicationProperties: { sequence: entry.sequence, type: entry.type, 'Diagnostic-Id': traceparent, traceparent },
  });
}

describe('W3C trace context of order messages', () => {
  it('takes traceparent first, else a Diagnostic-Id in traceparent format, whatever the key casing', () => {
    expect(messageTraceparent({ traceparent: tp(1), 'Diagnostic-Id': tp(2) })).toBe(tp(1));
    expect(messageTraceparent({ 'diagnostic-Id': tp(2) })).toBe(tp(2));
    expect(messageTraceparent({ traceparent: 'garbage', 'Diagnostic-Id': tp(3) })).toBe(tp(3));
    expect(messageTraceparent({ 'Diagnostic-Id': '|4bf92f3577b34da6.1.' })).toBeUndefined();
    expect(messageTraceparent({ sequence: 1 })).toBeUndefined();
    expect(messageTraceparent(undefined)).toBeUndefined();
  });

  it('accepts only well-formed traceparents', () => {
    expect(isTraceparent(tp(7))).toBe(true);
    expect(isTraceparent(`ff-${'a'.repeat(32)}-${'b'.repeat(16)}-01`)).toBe(false);
    expect(isTraceparent(`00-${'0'.repeat(32)}-${'b'.repeat(16)}-01`)).toBe(false);
    expect(isTraceparent(`00-${'a'.repeat(32)}-${'0'.repeat(16)}-01`)).toBe(false);
    expect(isTraceparent(`00-${'A'.repeat(32)}-${'b'.repeat(16)}-01`)).toBe(false);
    expect(isTraceparent(42)).toBe(false);
  });
});

describe('order processor, trace context on the outbox', () => {
  it("stores the message's traceparent with the event of an applied entry, and none when it had none", async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    // Act
    await h.send(tracedMessage(e.created(), tp(1)));
    await h.send(
      messageFor(e.added(2, 't-1', 5), { applicationProperties: { sequence: 2, 'Diagnostic-Id': '|legacy.1.' } }),
    );
    // Assess
    const docs = h.store.documents(orderId);
    expect(docs.get(`entry:order-processor:${orderId}-e1`)).toMatchObject({
      sequence: 1,
      traceparent: tp(1),
      event: { traceparent: tp(1) },
    });
    expect(docs.get(`entry:order-processor:${orderId}-e2`)).toMatchObject({ sequence: 2 });
    expect(docs.get(`entry:order-processor:${orderId}-e2`)).not.toHaveProperty('traceparent');
  });

  it("keeps each parked entry's own traceparent and gives it to its stored event when drained", async () => {
    // Prepare: 3 and 2 park behind the missing OrderCreated, each with its own trace.
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(tracedMessage(e.added(3, 't-2', 5), tp(3)));
    await h.send(tracedMessage(e.added(2, 't-1', 7), tp(2)));
    const parked = h.store.documents(orderId).get(`entry:order-processor:${orderId}-e3`);
    // Act: the message that fills the gap has another trace; the drain runs under it.
    const { result } = await h.send(tracedMessage(e.created(), tp(1)));
    // Assess
    expect(parked).toMatchObject({ status: 'parked', traceparent: tp(3) });
    expect(result).toMatchObject({ outcome: 'applied', drained: 2 });
    const docs = h.store.documents(orderId);
    expect(docs.get(`entry:order-processor:${orderId}-e1`)).toMatchObject({ traceparent: tp(1) });
    expect(docs.get(`entry:order-processor:${orderId}-e2`)).toMatchObject({ traceparent: tp(2) });
    expect(docs.get(`entry:order-processor:${orderId}-e3`)).toMatchObject({ traceparent: tp(3) });
  });
});
