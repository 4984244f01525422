import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getOrder, startStack } from '../integration/support/stack.js';
import type { Stack } from '../integration/support/stack.js';
import { uid } from '../integration/support/ledgers.js';
import type { EntryCase } from './cases/entryCase.js';
import { holdingCases } from './cases/ordersHolding.js';
import { holdingNothingCases } from './cases/ordersHoldingNothing.js';
import { DeadLetterPool } from './support/deadLetterPool.js';
import { added, amended, created } from './support/entries.js';
import type { EntryBody } from './support/entries.js';
import { runEntryCase, settleAll } from './support/entryCaseRun.js';
import type { EntryCaseRun } from './support/entryCaseRun.js';
import { asBytes, asObject, asText, sendRaw } from './support/rawMessages.js';
import { drainOrder } from './support/runs.js';

const cases: EntryCase[] = [...holdingNothingCases, ...holdingCases];

let stack: Stack;
let pool: DeadLetterPool;
const runs = new Map<string, PromiseSettledResult<EntryCaseRun>>();

// Every case has its own order (= session), so they all run side by side up front; each `it` then judges one.
beforeAll(async () => {
  stack = await startStack();
  pool = new DeadLetterPool(stack.bus, 'orders');
  const outcomes = await settleAll(cases, 8, (c) => runEntryCase(stack, pool, c, uid('o')));
  cases.forEach((c, i) => runs.set(c.name, outcomes[i]!));
}, 60_000);

afterAll(async () => {
  await pool?.close();
  await stack?.close();
});

function runOf(name: string): EntryCaseRun {
  const run = runs.get(name);
  if (!run) throw new Error(`case ${name} did not run`);
  if (run.status === 'rejected') throw run.reason;
  return run.value;
}

describe('bad-input corpus: order entry messages on the orders queue', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, testCase) => {
    const run = runOf(testCase.name);
    const { scenario } = run;
    const bad = new Set(run.badIds);
    const behindOutcome = testCase.holds ? 'parked' : 'applied';

    // Each message handled once, on its first delivery, settled once: the bad ones dead-lettered with the reason.
    expect(run.first.map((h) => h.messageId)).toEqual(run.sent.map((m) => m.messageId));
    expect(run.first.map((h) => h.result?.outcome)).toEqual(
      scenario.outcomes ?? [
        ...scenario.before.map(() => 'applied'),
        ...scenario.bad.map(() => 'deadLettered'),
        ...scenario.behind.map(() => behindOutcome),
      ],
    );
    expect(
      run.first.map((h) => [h.deliveryCount, h.settled.map((s) => (s.action === 'deadletter' ? s.reason : s.action))]),
    ).toEqual(run.sent.map((m) => [0, [bad.has(m.messageId) ? testCase.reason : 'complete']]));

    // The dead letters: exact reason, a useful description, delivered once (no redelivery before it was settled).
    for (const letter of run.dead) {
      expect(letter, 'dead letter').toBeDefined();
      expect(letter!.deadLetterReason).toBe(testCase.reason);
      expect(letter!.deadLetterErrorDescription).toMatch(testCase.description);
      expect(letter!.deadLetterSource).toBeUndefined();
      expect(letter!.deliveryCount).toBe(1);
      expect(letter!.correlationId).toBe(`L-${run.orderId}`);
    }

    // Rule 10 while the dead letter is unresolved: entries behind a held sequence park; otherwise nothing waits.
    const parkedBehind = testCase.holds
      ? scenario.behind.map((e) => ({ sequence: e.sequence, entryId: e.entryId }))
      : [];
    expect(run.viewBefore.status).toBe(200);
    expect(run.viewBefore.jsonBody).toMatchObject({ orderId: run.orderId, parked: parkedBehind, rejected: [] });

    // The operator's correction releases the parked entries, which apply in order.
    if (scenario.correction) {
      expect(run.resubmitted).toMatchObject({
        messageId: `${scenario.correction.entryId}.r1`,
        sessionId: run.orderId,
        applicationProperties: { resubmitCount: 1 },
      });
      expect(
        run.second.map((h) => [h.deliveryCount, h.result?.outcome, h.result?.sequence, h.result?.drained]),
      ).toEqual([[0, 'applied', scenario.correction.sequence, scenario.behind.length]]);
    } else {
      expect(run.second).toEqual([]);
    }
    expect(run.viewAfter.status).toBe(200);
    expect(run.viewAfter.jsonBody).toMatchObject({ orderId: run.orderId, ...testCase.final, parked: [], rejected: [] });
    expect(run.absent.map((r) => r.status)).toEqual((scenario.absent ?? []).map(() => 404));
  });

  it('accepts a valid entry whether its body arrives as an object, a string or bytes, and hashes them alike', async () => {
    // Prepare
    const o = uid('o');
    const second = added(o, 2, 't-1', 300);
    const reordered = `\uFEFF{ "data": { "amount": 300, "transactionId": "t-1" }, "type": "TransactionAdded", "sequence": 2, "orderId": "${o}", "entryId": "${o}-2" }`;
    await sendRaw(stack.bus, 'orders', [
      { messageId: `${o}-1`, sessionId: o, body: asObject(created(o)) },
      { messageId: `${o}-2`, sessionId: o, body: asText(JSON.stringify(second)) },
      { messageId: `${o}-3`, sessionId: o, body: asBytes(JSON.stringify(added(o, 3, 't-2', -50))) },
      { messageId: `${o}-2-again`, sessionId: o, body: asBytes(reordered) },
    ]);
    // Act
    const handled = await drainOrder(stack, o);
    const view = await getOrder(stack, o);
    // Assess
    expect(handled.map((h) => (Buffer.isBuffer(h.body) ? 'bytes' : typeof h.body))).toEqual([
      'object',
      'string',
      'bytes',
      'bytes',
    ]);
    expect(handled.map((h) => h.result?.outcome)).toEqual(['applied', 'applied', 'applied', 'duplicate']);
    expect(handled.flatMap((h) => h.settled.map((s) => s.action))).toEqual([
      'complete',
      'complete',
      'complete',
      'complete',
    ]);
    expect(view.jsonBody).toMatchObject({ lastSequence: 3, total: 250, parked: [], rejected: [] });
  });

  it('rejects a parked entry that turns out invalid (rule 11), holds the order, and releases it on resubmission', async () => {
    // Prepare: sequence 3 amends an unknown transaction and waits behind a gap with sequence 4.
    const o = uid('o');
    const ledgerId = `L-${o}`;
    const third = amended(o, 3, 't-9', 80);
    const send = (entries: EntryBody[]) =>
      sendRaw(
        stack.bus,
        'orders',
        entries.map((e) => ({ messageId: e.entryId, sessionId: o, correlationId: ledgerId, body: asObject(e) })),
      );
    await send([created(o), third, added(o, 4, 't-2', 20), added(o, 2, 't-1', 100)]);
    // Act
    const first = await drainOrder(stack, o);
    const held = await getOrder(stack, o);
    await sendRaw(stack.bus, 'orders', [
      {
        messageId: `${third.entryId}.r1`,
        sessionId: o,
        correlationId: ledgerId,
        applicationProperties: { resubmitCount: 1 },
        body: asObject(amended(o, 3, 't-1', 80)),
      },
    ]);
    const second = await drainOrder(stack, o);
    const released = await getOrder(stack, o);
    // Assess: its message was completed when parked, so it is rejected in the order, not dead-lettered.
    expect(first.map((h) => [h.deliveryCount, h.result?.outcome, h.settled.map((s) => s.action)])).toEqual([
      [0, 'applied', ['complete']],
      [0, 'parked', ['complete']],
      [0, 'parked', ['complete']],
      [0, 'applied', ['complete']],
    ]);
    expect(first[3]!.result).toMatchObject({ drained: 0, rejected: 1 });
    expect(held.jsonBody).toMatchObject({
      lastSequence: 2,
      parked: [{ sequence: 4, entryId: `${o}-4` }],
      rejected: [{ sequence: 3, entryId: third.entryId, reason: 'InvalidTransition' }],
    });
    expect(second.map((h) => [h.result?.outcome, h.result?.sequence, h.result?.drained])).toEqual([['applied', 3, 1]]);
    expect(released.jsonBody).toMatchObject({
      lastSequence: 4,
      total: 100,
      transactions: [
        { transactionId: 't-1', amount: 80 },
        { transactionId: 't-2', amount: 20 },
      ],
      parked: [],
      rejected: [],
    });
  });

  it('leaves nothing unexplained in the orders dead-letter queue', async () => {
    expect((await pool.rest()).map((m) => [m.sessionId, m.messageId, m.deadLetterReason])).toEqual([]);
  });
});
