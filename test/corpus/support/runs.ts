import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import type { RecordedSettlement } from '../../integration/support/settlementActions.js';
import { invokeWith } from '../../integration/support/stack.js';
import { nextWhileAny, peekEverything, receiveExactly } from '../../support/serviceBusWaits.js';
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

async function handle(
  stack: Stack,
  name: 'orderProcessor' | 'ledgerSplitter',
  receiver: Parameters<typeof invokeWith>[2],
  message: ServiceBusReceivedMessage,
): Promise<Handled> {
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
 * (`skipParsingBodyAsJson`), until the broker shows the session empty.
 */
export async function drainOrder(stack: Stack, orderId: string): Promise<Handled[]> {
  const receiver = await stack.bus.acceptSession('orders', orderId, { skipParsingBodyAsJson: true });
  const out: Handled[] = [];
  try {
    for (let message = await nextWhileAny(receiver); message; message = await nextWhileAny(receiver)) {
      out.push(await handle(stack, 'orderProcessor', receiver, message));
    }
    return out;
  } finally {
    await receiver.close();
  }
}

/** Receives the next ledger message (one must be on its way), body untouched, and runs the splitter on it. */
export async function splitNext(stack: Stack): Promise<Handled> {
  const receiver = stack.bus.createReceiver('ledger', { skipParsingBodyAsJson: true });
  try {
    const [message] = (await receiveExactly(receiver, 1, 'ledger messages')) as [ServiceBusReceivedMessage];
    return await handle(stack, 'ledgerSplitter', receiver, message);
  } finally {
    await receiver.close();
  }
}

/** Every message waiting on `orders` (all sessions), peeked, not locked. */
export async function peekOrders(stack: Stack): Promise<ServiceBusReceivedMessage[]> {
  const peeker = stack.bus.createReceiver('orders');
  try {
    return await peekEverything(peeker);
  } finally {
    await peeker.close();
  }
}
