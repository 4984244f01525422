/**
 * The test oracle: the expected business state of every order, worked out from the contracts alone (docs/contracts.md: "Order state",
 * the entry types, rule 7 and the bounds). It imports nothing from `src/` (a lint rule in
 * `eslint.config.js` keeps it so): `convoy verify`, the e2e tests and the chaos run hold the processor against it,
 * so borrowing the core's state machine would let a bug there agree with itself.
 */

/** Most transactions an order holds (docs/contracts.md): a `TransactionAdded` beyond it is invalid. @internal */
export const ORACLE_MAX_TRANSACTIONS = 1_000;

/** One ledger entry as the contract writes it (same JSON shape as the core's). */
export type OracleEntry = { entryId: string; orderId: string; sequence: number } & (
  | { type: 'OrderCreated'; data: { customerId: string; currency: string } }
  | { type: 'TransactionAdded'; data: { transactionId: string; amount: number } }
  | { type: 'TransactionAmended'; data: { transactionId: string; amount: number } }
  | { type: 'OrderDeleted'; data: Record<string, never> }
);

/** One transaction of an expected order. */
interface ExpectedTransaction {
  transactionId: string;
  amount: number;
}

/** The expected business state of an order: the GET view's business part, field for field. */
export interface ExpectedOrder {
  orderId: string;
  status: 'pending' | 'open' | 'deleted';
  customerId: string | null;
  currency: string | null;
  lastSequence: number;
  total: number;
  /** In the order they were added; an amendment changes the amount in place. */
  transactions: ExpectedTransaction[];
}

/**
 * The expected final business state of every order (in order of first appearance): each order's entries applied
 * in sequence, as the processor must apply them however they arrive (gaps park, duplicates and conflicting copies
 * don't apply). A deleted order keeps its transactions and total.
 * @throws Error naming the order, the entry and the broken rule when the entries are not a gap-free valid history
 * — the input is meant to be exactly the valid entries, so that is a generator bug.
 */
export function expectedOrders(entries: readonly OracleEntry[]): ExpectedOrder[] {
  const byOrder = new Map<string, OracleEntry[]>();
  for (const entry of entries) {
    const list = byOrder.get(entry.orderId) ?? [];
    list.push(entry);
    byOrder.set(entry.orderId, list);
  }
  return [...byOrder].map(([orderId, list]) => replay(orderId, list));
}

function replay(orderId: string, list: readonly OracleEntry[]): ExpectedOrder {
  const order: ExpectedOrder = {
    orderId,
    status: 'pending',
    customerId: null,
    currency: null,
    lastSequence: 0,
    total: 0,
    transactions: [],
  };
  const entryIds = new Set<string>();
  for (const entry of [...list].sort((a, b) => a.sequence - b.sequence)) {
    const problem = shapeProblem(entry) ?? positionProblem(order, entry, entryIds) ?? apply(order, entry);
    if (problem !== undefined) {
      throw new Error(
        `Not a valid history of order ${orderId} (a generator bug): entry ${entry.entryId} (${entry.type} at sequence ${entry.sequence}) ${problem}`,
      );
    }
    entryIds.add(entry.entryId);
    order.lastSequence = entry.sequence;
  }
  return order;
}

/** The contract's field rules (schemas are strict); undefined when the entry is well formed. */
function shapeProblem(entry: OracleEntry): string | undefined {
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(entry.entryId))
    return 'has an entryId that is not 1–100 characters of [A-Za-z0-9._-]';
  if (entry.orderId.length < 1 || entry.orderId.length > 128) return 'has an orderId that is not 1–128 characters';
  if (!Number.isSafeInteger(entry.sequence) || entry.sequence < 1) return 'has a sequence that is not an integer ≥ 1';
  const fields = Object.keys(entry).sort().join(',');
  if (fields !== 'data,entryId,orderId,sequence,type')
    return `has the fields {${fields}}, expected {entryId, orderId, sequence, type, data}`;
  if (typeof entry.data !== 'object' || entry.data === null || Array.isArray(entry.data))
    return 'has data that is not an object';
  const data = entry.data as Readonly<Record<string, unknown>>;
  const keys = Object.keys(data).sort().join(',');
  switch (entry.type) {
    case 'OrderCreated':
      if (keys !== 'currency,customerId') return `has data {${keys}}, expected {customerId, currency}`;
      if (!isText(data.customerId, 100)) return 'has a customerId that is not 1–100 characters';
      if (typeof data.currency !== 'string' || !/^[A-Z]{3}$/.test(data.currency))
        return 'has a currency that is not three upper-case letters';
      return undefined;
    case 'TransactionAdded':
    case 'TransactionAmended':
      if (keys !== 'amount,transactionId') return `has data {${keys}}, expected {transactionId, amount}`;
      if (!isText(data.transactionId, 100)) return 'has a transactionId that is not 1–100 characters';
      if (!Number.isSafeInteger(data.amount)) return 'has an amount that is not a safe integer of minor units';
      return undefined;
    case 'OrderDeleted':
      return keys === '' ? undefined : `has data {${keys}}, expected {}`;
    default:
      return 'has an unknown type';
  }
}

/** Sequence numbering without gaps or repeats, and `entryId` unique within the order. */
function positionProblem(order: ExpectedOrder, entry: OracleEntry, entryIds: ReadonlySet<string>): string | undefined {
  if (entry.sequence === order.lastSequence) return 'repeats a sequence';
  if (entry.sequence !== order.lastSequence + 1)
    return `comes after a hole: the order has no entry at sequence ${order.lastSequence + 1}`;
  if (entryIds.has(entry.entryId)) return 'reuses an entryId of the same order';
  return undefined;
}

/** Rule 7 and "Order state": applies the entry to `order` in place, or says why it is impossible. */
function apply(order: ExpectedOrder, entry: OracleEntry): string | undefined {
  if (order.status === 'deleted') return 'follows OrderDeleted, which ends the order';
  if (entry.type === 'OrderCreated') {
    if (entry.sequence !== 1) return 'is an OrderCreated past sequence 1';
    order.status = 'open';
    order.customerId = entry.data.customerId;
    order.currency = entry.data.currency;
    return undefined;
  }
  if (order.status === 'pending') return 'comes before OrderCreated';
  const { transactions } = order;
  switch (entry.type) {
    case 'TransactionAdded': {
      const { transactionId, amount } = entry.data;
      if (transactions.some((t) => t.transactionId === transactionId))
        return `adds transaction ${transactionId}, which already exists`;
      if (transactions.length >= ORACLE_MAX_TRANSACTIONS)
        return `adds a transaction past the ${ORACLE_MAX_TRANSACTIONS.toLocaleString('en')}-transaction bound`;
      transactions.push({ transactionId, amount });
      break;
    }
    case 'TransactionAmended': {
      const { transactionId, amount } = entry.data;
      const found = transactions.find((t) => t.transactionId === transactionId);
      if (!found) return `amends transaction ${transactionId}, which does not exist`;
      found.amount = amount;
      break;
    }
    case 'OrderDeleted':
      order.status = 'deleted';
      return undefined;
  }
  const total = transactions.reduce((sum, t) => sum + t.amount, 0);
  // Past 2^53 the sum would round: no exact total can be expected.
  if (!Number.isSafeInteger(total)) return 'takes the total out of the safe integer range';
  order.total = total;
  return undefined;
}

function isText(value: unknown, max: number): boolean {
  return typeof value === 'string' && value.length >= 1 && value.length <= max;
}
