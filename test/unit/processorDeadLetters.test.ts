import { describe, expect, it } from 'vitest';
import { type Entry } from '../../src/core/index.js';
import { requestHash } from '../../src/core/hash.js';
import type { ReceivedOrderMessage } from '../../src/core/processor/decide.js';
import { entriesFor, makeHarness, messageFor, uniqueOrderId } from './support/fixtures.js';

type Harness = ReturnType<typeof makeHarness>;
type Scenario = (
  h: Harness,
  e: ReturnType<typeof entriesFor>,
) => Promise<{ entry: Entry; message?: ReceivedOrderMessage }>;

const scenarios: [string, string, Scenario][] = [
  [
    'SchemaValidationFailed',
    'an orderId other than the session',
    async (_h, e) => {
      const entry = e.created();
      return { entry, message: messageFor(entry, { sessionId: 'another-order' }) };
    },
  ],
  [
    'InvalidTransition',
    'an amendment of an unknown transaction',
    async (h, e) => {
      await h.send(e.created());
      return { entry: e.amended(2, 't-unknown', 1) };
    },
  ],
  [
    'InvalidTransition',
    'an entry after a gap behind OrderDeleted',
    async (h, e) => {
      await h.send(e.created());
      await h.send(e.deleted(2));
      return { entry: e.added(4, 't-4', 1) };
    },
  ],
  [
    'SequenceConflict',
    'another entryId at an applied sequence',
    async (h, e) => {
      await h.send(e.created());
      return { entry: e.created(1, 'intruder') };
    },
  ],
  [
    'SequenceConflict',
    'another entryId at a parked sequence',
    async (h, e) => {
      await h.send(e.created());
      await h.send(e.added(3, 't-3', 1));
      return { entry: e.added(3, 't-3', 1, 'intruder') };
    },
  ],
  [
    'IdempotencyKeyConflict',
    'an applied entryId with other content',
    async (h, e) => {
      await h.send(e.created());
      await h.send(e.added(2, 't-2', 1, 'X'));
      return { entry: e.added(2, 't-2', 2, 'X') };
    },
  ],
  [
    'IdempotencyKeyConflict',
    'an entryId applied elsewhere, its inbox record expired',
    async (h, e) => {
      await h.send(e.created());
      await h.send(e.added(2, 't-2', 1, 'X'));
      h.clock.advance(3601 * 1000);
      return { entry: e.added(5, 't-5', 1, 'X') };
    },
  ],
  [
    'IdempotencyKeyConflict',
    'an entryId parked at another sequence',
    async (h, e) => {
      await h.send(e.created());
      await h.send(e.added(4, 't-4', 1, 'X'));
      return { entry: e.added(3, 't-3', 1, 'X') };
    },
  ],
];

describe('order processor, a dead letter records nothing (rule 10)', () => {
  it.each(scenarios)('writes no inbox record or parked entry for %s: %s', async (reason, _name, scenario) => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const { entry, message } = await scenario(h, entriesFor(orderId));
    const before = h.store.documents(orderId);
    // Act
    const { result } = await h.send(message ?? entry);
    // Assess
    expect(result).toMatchObject({ outcome: 'deadLettered', reason });
    const after = h.store.documents(orderId);
    const inbox = after.get(`entry:order-processor:${entry.entryId}`);
    expect(inbox === undefined || (inbox as { requestHash: string }).requestHash !== requestHash(entry)).toBe(true);
    expect(inbox).toEqual(before.get(`entry:order-processor:${entry.entryId}`));
    expect(after.get(`parked:${entry.sequence}`)).toEqual(before.get(`parked:${entry.sequence}`));
    expect(after.get('order')).toEqual(before.get('order'));
  });
});
