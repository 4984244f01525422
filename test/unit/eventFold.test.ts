import { describe, expect, it } from 'vitest';
import { foldOrderEvent, type BusinessState, type Entry } from '../../src/core/index.js';
import type { AppliedEntryRecord } from '../../src/core/documents/entryRecord.js';
import { entriesFor, makeHarness, uniqueOrderId, viewOf } from './support/fixtures.js';

/** A small seeded generator (mulberry32), so a failing seed can be replayed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A random order: OrderCreated, then adds, amendments (of transactions it holds and, now and then, of one it does
 * not: rule 7) and repeated adds of an existing id (rule 7), maybe OrderDeleted at the end; amounts of any sign.
 */
function randomOrder(orderId: string, random: () => number): Entry[] {
  const e = entriesFor(orderId);
  const entries: Entry[] = [e.created()];
  const held: string[] = [];
  const length = 5 + Math.floor(random() * 60);
  const amount = () => Math.floor(random() * 20_001) - 10_000;
  for (let sequence = 2; sequence <= length; sequence++) {
    const roll = random();
    if (held.length === 0 || roll < 0.5) {
      const transactionId = `t-${sequence} ${'€'.repeat(Math.floor(random() * 3))}`;
      held.push(transactionId);
      entries.push(e.added(sequence, transactionId, amount()));
    } else if (roll < 0.94) {
      entries.push(e.amended(sequence, held[Math.floor(random() * held.length)]!, amount()));
    } else if (roll < 0.97) {
      entries.push(e.added(sequence, held[Math.floor(random() * held.length)]!, amount()));
    } else {
      entries.push(e.amended(sequence, `t-unknown-${sequence}`, amount()));
    }
  }
  if (random() < 0.5) entries.push(e.deleted(length + 1));
  return entries;
}

describe('order events carry the change: folding them in sequence order gives the order the GET view shows', () => {
  it.each(Array.from({ length: 20 }, (_, i) => i + 1))('folds the events of a random order (seed %i)', async (seed) => {
    // Prepare: a random order, sent in order but with a few neighbours swapped (parked, then drained)
    const random = seeded(seed);
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const entries = randomOrder(orderId, random);
    for (let i = 1; i + 1 < entries.length; i++)
      if (random() < 0.2) [entries[i], entries[i + 1]] = [entries[i + 1]!, entries[i]!];
    // Act
    const outcomes = [];
    for (const entry of entries) outcomes.push((await h.send(entry)).result.outcome);
    // Assess: each applied entry left one event; their fold is the view's business state, entry for entry
    const events = [...h.store.documents(orderId).values()]
      .filter((d): d is AppliedEntryRecord => d.docType === 'entry' && d.status === 'applied')
      .map((r) => r.event.data);
    const view = await viewOf(h.store, orderId);
    const { parked: _parked, rejected: _rejected, ...business } = view!;
    expect(outcomes).not.toContain('abandoned');
    expect(events.map((d) => d.sequence).sort((a, b) => a - b)).toEqual(
      Array.from({ length: view!.lastSequence }, (_, i) => i + 1),
    );
    const folded = events
      .sort((a, b) => a.sequence - b.sequence)
      .reduce<BusinessState | undefined>(foldOrderEvent, undefined);
    expect(folded).toEqual(business);
    for (const data of events)
      expect(Object.keys(data)).toEqual(['orderId', 'sequence', 'entryId', 'type', 'change', 'order']);
  });
});
