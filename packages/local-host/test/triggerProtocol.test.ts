import { describe, expect, it } from 'vitest';
import { ServiceBusError, isServiceBusError } from '@azure/service-bus';
import { fromWireError, toWireError } from '../src/servicebus/triggerProtocol.js';

describe('an error crossing from the trigger thread to the main thread', () => {
  it("keeps what a caller tells errors apart by: a settlement's ServiceBusError stays one, code and retryable", () => {
    const thrown = new ServiceBusError('the lock supplied is invalid', 'MessageLockLost');
    const error = fromWireError(structuredClone(toWireError(thrown)));
    expect(isServiceBusError(error) && error instanceof ServiceBusError).toBe(true);
    expect(error).toMatchObject({ name: 'ServiceBusError', code: 'MessageLockLost', retryable: thrown.retryable });
    expect(error.message).toBe(thrown.message);
    expect(error.stack).toBe(thrown.stack);
  });

  it('carries a plain error and a thrown non-error as errors with their text', () => {
    expect(fromWireError(structuredClone(toWireError(new TypeError('bad'))))).toMatchObject({
      name: 'TypeError',
      message: 'bad',
    });
    expect(fromWireError(structuredClone(toWireError('just text'))).message).toBe('just text');
  });
});
