import { describe, expect, it } from 'vitest';
import { CloudEvent } from 'cloudevents';
import { orderCloudEvent, orderEventKey, orderEventSource } from '../../src/core/outbox/orderCloudEvent.js';
import { initialOrderState } from '../../src/core/order/orderState.js';

describe('order events as CloudEvents keyed per order', () => {
  it.each([
    ['o-1', 'e-1', '/orders/o-1', 'evt-70f62ba215bc70d4e0998953c70b2d07'],
    ['Bestellung/ä 1', 'e-7', '/orders/Bestellung%2F%C3%A4%201', 'evt-3820c5b73f4384049ccd4278241f5f16'],
  ])('gives order %s, entry %s the source %s and the key %s', (orderId, entryId, source, key) => {
    // Act + Assess
    expect(orderEventSource(orderId)).toBe(source);
    expect(orderEventKey(source, entryId)).toBe(key);
  });

  it('keys two orders that reuse an entryId apart', () => {
    // Act + Assess
    expect(orderEventKey(orderEventSource('o-1'), 'e-1')).not.toBe(orderEventKey(orderEventSource('o-2'), 'e-1'));
  });

  it('builds a structured CloudEvent from the entry alone, inventing neither id nor time, and the SDK reads it back as valid', () => {
    // Prepare
    const order = {
      ...initialOrderState(),
      status: 'open' as const,
      customerId: 'c-9',
      currency: 'EUR',
      lastSequence: 1,
    };
    const change = { customerId: 'c-9', currency: 'EUR' };
    const input = {
      orderId: 'o-1',
      entryId: 'e-1',
      sequence: 1,
      type: 'OrderCreated' as const,
      change,
      order,
      committedAt: '2025-01-01T00:00:00.123Z',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    };
    // Act
    const first = orderCloudEvent(input);
    const again = orderCloudEvent(input);
    // Assess
    expect(first.event).toEqual({
      specversion: '1.0',
      id: 'e-1',
      source: '/orders/o-1',
      type: 'convoy.order.created',
      time: '2025-01-01T00:00:00.123Z',
      datacontenttype: 'application/json',
      dataschema: 'urn:ledger-convoy:order-event-data:v1',
      traceparent: input.traceparent,
      data: { orderId: 'o-1', sequence: 1, entryId: 'e-1', type: 'OrderCreated', change, order },
    });
    expect(JSON.stringify(again)).toBe(JSON.stringify(first));
    expect(first.key).toBe('evt-70f62ba215bc70d4e0998953c70b2d07');
    expect(new CloudEvent(JSON.parse(JSON.stringify(first.event)) as Record<string, unknown>).validate()).toBe(true);
    expect(orderCloudEvent({ ...input, traceparent: undefined }).event).not.toHaveProperty('traceparent');
  });

  it.each([
    ['OrderCreated', 'convoy.order.created'],
    ['TransactionAdded', 'convoy.order.transaction-added'],
    ['TransactionAmended', 'convoy.order.transaction-amended'],
    ['OrderDeleted', 'convoy.order.deleted'],
  ] as const)('names what a %s entry did to the order: type %s', (type, cloudEventType) => {
    // Act
    const { event } = orderCloudEvent({
      orderId: 'o-1',
      entryId: 'e-1',
      sequence: 1,
      type,
      change: {} as never,
      order: { ...initialOrderState(), lastSequence: 1 },
      committedAt: '2025-01-01T00:00:00.000Z',
      traceparent: undefined,
    });
    // Assess
    expect(event.type).toBe(cloudEventType);
    expect(event.dataschema).toBe('urn:ledger-convoy:order-event-data:v1');
  });
});
