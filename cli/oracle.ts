import { applyTransition, initialOrderState, type BusinessState, type Entry } from '../src/core/index.js';

/**
 * The expected final business state of every order: each order's valid entries applied in sequence with the
 * core's state machine, as the processor applies them however they arrive (gaps park, duplicates and
 * conflicting copies don't apply). Throws if the entries are not a gap-free valid history — a generator bug.
 */
export function expectedOrders(entries: readonly Entry[]): BusinessState[] {
  const byOrder = new Map<string, Entry[]>();
  for (const entry of entries) {
    const list = byOrder.get(entry.orderId) ?? [];
    list.push(entry);
    byOrder.set(entry.orderId, list);
  }
  return [...byOrder].map(([orderId, list]) => {
    let state = initialOrderState();
    let lastSequence = 0;
    for (const entry of [...list].sort((a, b) => a.sequence - b.sequence)) {
      if (entry.sequence !== lastSequence + 1) {
        throw new Error(`Order ${orderId} has no entry at sequence ${lastSequence + 1} (next is ${entry.sequence})`);
      }
      const next = applyTransition(state, entry);
      if (!next.ok) throw new Error(`Entry ${entry.entryId} is invalid: ${next.error.message}`);
      state = next.state;
      lastSequence = entry.sequence;
    }
    return {
      orderId,
      status: state.status,
      customerId: state.customerId,
      currency: state.currency,
      lastSequence,
      total: state.total,
      transactions: state.transactions.map((t) => ({ transactionId: t.transactionId, amount: t.amount })),
    };
  });
}
