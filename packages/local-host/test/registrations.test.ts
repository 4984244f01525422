import { describe, expect, it } from 'vitest';
import { output } from '@azure/functions';
import { groupFunctions } from '../src/functionRegistry.js';
import type { FunctionRegistration } from '../src/registrations.js';

const handler = (): undefined => undefined;
const sb = (name: string, extra: object = {}): FunctionRegistration => ({
  kind: 'serviceBusQueue',
  name,
  options: { connection: 'ServiceBusConnection', queueName: 'q', handler, ...extra },
});

describe('groupFunctions', () => {
  it('groups registrations by trigger kind, keeping the HTTP return binding', () => {
    const groups = groupFunctions([
      sb('a'),
      { kind: 'http', name: 'h', options: { handler: () => ({}), return: output.http({}) } },
      { kind: 'timer', name: 't', options: { schedule: '0 * * * * *', handler } },
      {
        kind: 'serviceBusTopic',
        name: 'b',
        options: { connection: 'ServiceBusConnection', topicName: 't', subscriptionName: 's', handler },
      },
    ]);
    expect(groups.serviceBus.map((r) => r.name)).toEqual(['a', 'b']);
    expect(groups.http.map((r) => r.name)).toEqual(['h']);
    expect(groups.timer.map((r) => r.name)).toEqual(['t']);
  });

  it('refuses what the local host would silently get wrong', () => {
    expect(() => groupFunctions([sb('many', { cardinality: 'many' })])).toThrow(/many: cardinality "many"/);
    expect(() => groupFunctions([sb('manySessions', { cardinality: 'many', isSessionsEnabled: true })])).toThrow(
      /one session at a time and renews no session lock/,
    );
    const queueOut = output.serviceBusQueue({ connection: 'ServiceBusConnection', queueName: 'x' });
    expect(() => groupFunctions([sb('out', { extraOutputs: [queueOut] })])).toThrow(/out: extraOutputs/);
    expect(() => groupFunctions([sb('ret', { return: queueOut })])).toThrow(/"serviceBus" return binding/);
    expect(() => groupFunctions([sb('dup'), sb('dup')])).toThrow(/registered twice/);
  });
});
