import type { ServiceBusClient, ServiceBusReceivedMessage, ServiceBusReceiver } from '@azure/service-bus';
import { PATIENCE_MS, peekEverything } from '../../support/serviceBusWaits.js';

/**
 * The dead letters of one queue, shared by cases that run side by side: each case claims its own by `messageId`,
 * and whatever nobody claimed is left for the final "nothing unexplained" check. Receives are serialised on one
 * receiver; every message received is completed (removed) and kept here.
 */
export class DeadLetterPool {
  private readonly receiver: ServiceBusReceiver;
  private readonly unclaimed = new Map<string, ServiceBusReceivedMessage>();
  private chain: Promise<unknown> = Promise.resolve();

  constructor(bus: ServiceBusClient, queue: string) {
    this.receiver = bus.createReceiver(queue, { subQueueType: 'deadLetter', skipParsingBodyAsJson: true });
  }

  /** The dead letter with `messageId` (it must be there already or on its way); undefined if it never came. */
  claim(messageId: string): Promise<ServiceBusReceivedMessage | undefined> {
    return this.serial(async () => {
      const deadline = performance.now() + PATIENCE_MS;
      while (!this.unclaimed.has(messageId) && performance.now() < deadline) await this.receiveSome(100);
      const found = this.unclaimed.get(messageId);
      this.unclaimed.delete(messageId);
      return found;
    });
  }

  /** Everything nobody claimed: what was received for no case, and what the queue still holds (peeked). */
  rest(): Promise<ServiceBusReceivedMessage[]> {
    return this.serial(async () => {
      const out = [...this.unclaimed.values(), ...(await peekEverything(this.receiver))];
      this.unclaimed.clear();
      return out;
    });
  }

  close(): Promise<void> {
    return this.receiver.close();
  }

  private async receiveSome(waitMs: number): Promise<number> {
    const batch = await this.receiver.receiveMessages(50, { maxWaitTimeInMs: waitMs });
    for (const message of batch) {
      await this.receiver.completeMessage(message);
      this.unclaimed.set(String(message.messageId), message);
    }
    return batch.length;
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.chain.then(work);
    this.chain = next.catch(() => undefined);
    return next;
  }
}
