import { describe, expect, it } from 'vitest';
import { createSettlementQueue } from '../src/servicebus/settlementQueue.js';

describe('createSettlementQueue', () => {
  it('starts each settlement only after the previous one finished, even when one fails', async () => {
    const queue = createSettlementQueue();
    const events: string[] = [];
    const step =
      (name: string, fail = false) =>
      async () => {
        events.push(`${name}:start`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        events.push(`${name}:end`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([queue.run(step('a')), queue.run(step('b', true)), queue.run(step('c'))]);
    expect(events).toEqual(['a:start', 'a:end', 'b:start', 'b:end', 'c:start', 'c:end']);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });
});
