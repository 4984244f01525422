import { DeadLetterReason } from 'ledger-convoy/core';
import { PoisonKind, type ExpectedDeadLetter, type PlannedSend } from './runPlan.js';

const KINDS: readonly PoisonKind[] = [
  PoisonKind.NotJson,
  PoisonKind.BadSchema,
  PoisonKind.WrongSession,
  PoisonKind.BadLedger,
];

/**
 * The `index`-th poison message and the dead letter it should cause. `sessionId` is a real order of the run;
 * `otherOrderId` an order that does not exist, so no poison can touch an order's expected state.
 */
export function poisonSend(
  index: number,
  id: string,
  sessionId: string,
  otherOrderId: string,
): { send: PlannedSend; expected: ExpectedDeadLetter } {
  const kind = KINDS[index % KINDS.length] as PoisonKind;
  const expected: ExpectedDeadLetter = {
    queue: kind === PoisonKind.BadLedger ? 'ledger' : 'orders',
    id,
    reason: DeadLetterReason.SchemaValidationFailed,
    cause: kind,
  };
  const toOrders = (body: Uint8Array | Record<string, unknown>): PlannedSend => ({
    kind: 'poison',
    poison: kind,
    queue: 'orders',
    messageId: id,
    sessionId,
    body,
  });
  switch (kind) {
    case PoisonKind.NotJson:
      // A body cut short: what a producer crashing mid-write leaves behind.
      return {
        send: toOrders(Buffer.from(`{"entryId":"${id}","orderId":"${sessionId}","sequence":`, 'utf8')),
        expected,
      };
    case PoisonKind.BadSchema:
      return {
        send: toOrders({
          entryId: id,
          orderId: sessionId,
          sequence: 'next',
          type: 'TransactionAdded',
          data: { transactionId: 'tx', amount: 12.5 },
          note: 'unknown property',
        }),
        expected,
      };
    case PoisonKind.WrongSession:
      return {
        send: toOrders({
          entryId: id,
          orderId: otherOrderId,
          sequence: 2,
          type: 'TransactionAdded',
          data: { transactionId: 'tx', amount: 100 },
        }),
        expected,
      };
    case PoisonKind.BadLedger: {
      const entry = {
        entryId: `${id}-e1`,
        orderId: otherOrderId,
        sequence: 1,
        type: 'OrderCreated',
        data: { customerId: 'c-0', currency: 'EUR' },
      };
      return {
        send: {
          kind: 'poison',
          poison: kind,
          queue: 'ledger',
          messageId: id,
          sessionId: undefined,
          body: { ledgerId: id, entries: [entry, entry] },
        },
        expected,
      };
    }
  }
}
