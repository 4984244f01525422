import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import type { RecordedSettlement } from '../../integration/support/settlementActions.js';
import { invokeWith } from '../../integration/support/stack.js';
import type { Stack } from '../../integration/support/stack.js';

/** What the processor or splitter did with one received message. */
export interface Handled {
  messageId: string;
  /** Earlier deliveries of the message when it was handled (0 = first delivery). */
  deliveryCount: number;
  /** The body exactly as the handler got it. */
  body: unknown;
  /** The processor's result (undefined for the splitter). */
  result: { outcome?: string; reason?: string; sequence?: number; drained?: number; description?: string } | undefined;
  settled: RecordedSettlement[];
}

async function handle(stack: Stack, name: 'orderProcessor' | 'ledgerSplitter', receiver: Parameters<typeof invokeWith>[2], message: ServiceBusReceivedMessage): Promise<Handled> {
  const run = await invokeWith(stack.handlers[name], name, receiver, message);
  return {
    messageId: String(message.messageId),
    deliveryCount: message.deliveryCount ?? -1,
    body: message.body,
    result: run.result as Handled['result'],
    settled: run.settled,
  };
}

/**
 * Accepts `orderId`'s session and runs the order processor on each message, bodies untouched
 * (`skipParsingBodyAsJson`), until none arrives for `idleMs`.
 */
export async function drainOrder(stack: Stack, orderId: string, idleMs = 250): Promise<Handled[]> {
  const receiver = await stack.bus.acceptSession('orders', orderId, { skipParsingBodyAsJson: true });
  const out: Handled[] = [];
  try {
    for (;;) {
      const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: idleMs });
      if (!message) return out;
      out.push(await handle(stack, 'orderProcessor', receiver, message));
    }
  } finally {
    await receiver.close();
  }
}

/** Receives the next ledger message, body untouched, and runs the splitter on it. */
export async function splitNext(stack: Stack, waitMs = 2_000): Promise<Handled> {
  const receiver = stack.bus.createReceiver('ledger', { skipParsingBodyAsJson: true });
  try {
    const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: waitMs });
    if (!message) throw new Error('no ledger message arrived');
    return await handle(stack, 'ledgerSplitter', receiver, message);
  } finally {
    await receiver.close();
  }
}

/** Every message waiting on `orders` (all sessions), peeked, not locked. */
export async function peekOrders(stack: Stack): Promise<ServiceBusReceivedMessage[]> {
  const peeker = stack.bus.createReceiver('orders');
  try {
    return await peeker.peekMessages(1_000);
  } finally {
    await peeker.close();
  }
}
