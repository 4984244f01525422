import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start } from '../src/index.js';
import { peekEverything, receiveExactly } from '../../../test/support/serviceBusWaits.js';
import { configWith, queue, startBus } from './helpers.js';
import type { TestBus } from './helpers.js';

const T = 'sql-topic';
const sqlRule = (name: string, filter: string, action?: string): unknown => ({
  Name: name,
  Properties: {
    FilterType: 'Sql',
    SqlFilter: { SqlExpression: filter },
    ...(action ? { Action: { SqlExpression: action } } : {}),
  },
});

/** SQL rules as the official emulator's Config.json writes them, through a topic with the real SDK. */
describe('SQL filters and rule actions from Config.json', () => {
  let bus: TestBus;
  beforeAll(async () => {
    bus = await startBus(
      configWith(
        [],
        [
          {
            Name: T,
            Subscriptions: [
              { Name: 'expensive', Rules: [sqlRule('expensive', "sys.Label = 'order' AND price * quantity >= 100")] },
              // Two matching rules without actions give one copy; each matching rule with an action gives its own.
              {
                Name: 'annotated',
                Rules: [
                  sqlRule('any-a', 'price > 0'),
                  sqlRule('any-b', 'quantity > 0'),
                  sqlRule('tag', 'quantity > 1', "SET tier = 'bulk'; REMOVE internal"),
                ],
              },
              {
                Name: 'correlated',
                Rules: [
                  { Name: 'c', Properties: { FilterType: 'Correlation', CorrelationFilter: { Label: 'refund' } } },
                ],
              },
            ],
          },
        ],
      ),
    );
  });
  afterAll(() => bus.close());

  it('routes by the filter and applies the action to its own copy, marked with the rule name', async () => {
    await bus.client.createSender(T).sendMessages([
      { body: 'cheap', subject: 'order', applicationProperties: { price: 10, quantity: 2, internal: 'x' } },
      { body: 'dear', subject: 'order', applicationProperties: { price: 60.5, quantity: 2 } },
      { body: 'refund', subject: 'refund', applicationProperties: { price: 5, quantity: 1 } },
    ]);
    const read = async (sub: string, n: number): Promise<{ body: unknown; props: unknown }[]> => {
      const r = bus.client.createReceiver(T, sub, { receiveMode: 'receiveAndDelete' });
      const got = await receiveExactly(r, n, `messages on ${sub}`);
      expect(await peekEverything(r)).toEqual([]);
      await r.close();
      return got.map((m) => ({ body: m.body, props: m.applicationProperties }));
    };
    expect((await read('expensive', 1)).map((m) => m.body)).toEqual(['dear']);
    expect(await read('annotated', 5)).toEqual([
      { body: 'cheap', props: { price: 10, quantity: 2, internal: 'x' } },
      { body: 'cheap', props: { price: 10, quantity: 2, tier: 'bulk', RuleName: 'tag' } },
      { body: 'dear', props: { price: 60.5, quantity: 2 } },
      { body: 'dear', props: { price: 60.5, quantity: 2, tier: 'bulk', RuleName: 'tag' } },
      { body: 'refund', props: { price: 5, quantity: 1 } },
    ]);
    expect((await read('correlated', 1)).map((m) => m.body)).toEqual(['refund']);
  });

  it('refuses a Config.json whose SQL does not parse, naming the rule and the position', async () => {
    const bad = configWith(
      [queue('q')],
      [{ Name: 't', Subscriptions: [{ Name: 's', Rules: [sqlRule('broken', 'price >> 1')] }] }],
    );
    await expect(start({ port: 0, adminPort: 0, config: bad })).rejects.toThrow(
      /subscription "s" rule #1 "broken": .* at line 1, column 8/,
    );
    const badAction = configWith(
      [],
      [{ Name: 't', Subscriptions: [{ Name: 's', Rules: [sqlRule('a', '1=1', 'SET = 2')] }] }],
    );
    await expect(start({ port: 0, adminPort: 0, config: badAction })).rejects.toThrow(
      /rule #1 "a": .* at line 1, column 5/,
    );
  });
});
