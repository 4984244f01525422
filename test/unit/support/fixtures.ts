import { type Entry, type ProcessResult } from '../../../src/core/index.js';
import { OrderCache } from '../../../src/core/processor/orderCache.js';
import { OrderProcessor } from '../../../src/core/processor/orderProcessor.js';
import { entryMessageId, requestHash } from '../../../src/core/hash.js';
import { readOrderView } from '../../../src/core/order/readOrderView.js';
import type { OrderStore } from '../../../src/core/ports/orderStore.js';
import type { ReceivedOrderMessage } from '../../../src/core/processor/decide.js';
import { InMemoryOrderStore, ManualClock, RecordingSettlement, RecordingTelemetry } from '../../support/fakes/index.js';

/** A unique order id per test, so state never leaks between tests. */
export function uniqueOrderId(prefix = 'o'): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
}

/** Builders for the four entry types of one order. */
export function entriesFor(orderId: string) {
  return {
    created: (sequence = 1, entryId = `${orderId}-e${sequence}`): Entry => ({
      entryId,
      orderId,
      sequence,
      type: 'OrderCreated',
      data: { customerId: 'c-9', currency: 'EUR' },
    }),
    added: (sequence: number, transactionId: string, amount: number, entryId = `${orderId}-e${sequence}`): Entry => ({
      entryId,
      orderId,
      sequence,
      type: 'TransactionAdded',
      data: { transactionId, amount },
    }),
    amended: (sequence: number, transactionId: string, amount: number, entryId = `${orderId}-e${sequence}`): Entry => ({
      entryId,
      orderId,
      sequence,
      type: 'TransactionAmended',
      data: { transactionId, amount },
    }),
    deleted: (sequence: number, entryId = `${orderId}-e${sequence}`): Entry => ({
      entryId,
      orderId,
      sequence,
      type: 'OrderDeleted',
      data: {},
    }),
  };
}

/** The order entry message the splitter would send for `entry`. */
export function messageFor(entry: Entry, overrides: Partial<ReceivedOrderMessage> = {}): ReceivedOrderMessage {
  return {
    body: entry,
    messageId: entryMessageId(entry.entryId, requestHash(entry)),
    sessionId: entry.orderId,
    correlationId: 'L-0001',
    applicationProperties: { sequence: entry.sequence, type: entry.type },
    deliveryCount: 1,
    ...overrides,
  };
}

/** The order as the API would show it, read straight from `store`; `undefined` when there is no order document. */
export function viewOf(store: OrderStore, orderId: string) {
  return readOrderView(store, orderId);
}

/** Options a processor gets in tests: fast backoff, a short budget. */
export const testOptions = {
  consumerName: 'order-processor',
  transientRetryBudgetMs: 30_000,
  retryBaseDelayMs: 100,
  retryMaxDelayMs: 5_000,
};

/** A processor over an in-memory store with recorders, one session cache, and a manual clock. */
export function makeHarness(options: Partial<typeof testOptions> = {}) {
  const clock = new ManualClock();
  const store = new InMemoryOrderStore(clock);
  const telemetry = new RecordingTelemetry();
  const cache = new OrderCache();
  const processor = new OrderProcessor({
    store,
    telemetry,
    options: { ...testOptions, ...options },
    clock,
    sleep: clock.sleep,
    random: () => 0.5,
  });
  const settlements: RecordingSettlement[] = [];
  /** Processes one message with a fresh settlement recorder; returns the result and that recorder. */
  async function send(message: ReceivedOrderMessage | Entry, withCache: OrderCache | undefined = cache) {
    const msg = 'body' in message ? message : messageFor(message);
    const settlement = new RecordingSettlement();
    settlements.push(settlement);
    const result: ProcessResult = await processor.process(msg, { settlement, cache: withCache });
    return { result, settlement };
  }
  return { clock, store, telemetry, cache, processor, settlements, send };
}
