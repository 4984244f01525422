import type { Delivery, Receiver } from 'rhea';
import type { Admission, Broker, SendTarget } from '../broker/broker.js';
import { parseMessage, splitBatch } from '../broker/wireMessage.js';
import type { ParsedMessage } from '../broker/wireMessage.js';
import { brokerErrors, isBrokerError } from '../errors/brokerError.js';
import { acceptIncoming, rejectIncoming } from './dispositionGate.js';
import { internals } from './rheaLink.js';

/** Message format of a Service Bus batch: data sections, each one encoded message. */
const BATCH_FORMAT = 0x80013700;

/**
 * A client's sending link to a queue or topic. Validates size, parses, hands messages to the broker and only
 * then accepts the delivery — after an fsync when the store is durable.
 */
export class IncomingLink {
  private constructor(
    private readonly broker: Broker,
    private readonly target: SendTarget,
    private readonly limit: number,
  ) {}

  /** Sets up the link inside rhea's `receiver_open`; closes it with amqp:not-found for an unknown entity. */
  static open(broker: Broker, link: Receiver, address: string): IncomingLink | undefined {
    const li = internals(link);
    li.local.attach.target = li.remote.attach?.target ?? null;
    li.local.attach.source = li.remote.attach?.source ?? null;
    let target: SendTarget;
    try {
      target = broker.sendTarget(address);
    } catch (err) {
      link.close(isBrokerError(err) ? err.toAmqp() : { condition: 'amqp:internal-error', description: String(err) });
      return undefined;
    }
    const limit = broker.maxMessageSize(target);
    // createMessageBatch sizes batches from the attach's max-message-size.
    li.local.attach.max_message_size = limit;
    return new IncomingLink(broker, target, limit);
  }

  /**
   * Handles one complete transfer. `raw` is the encoded message (or batch). A send is accepted — and its messages
   * become visible, their ids recorded for duplicate detection — only once the store has it; a failed write takes it
   * all back, so the client's retry is neither lost nor taken for a duplicate.
   */
  onTransfer(delivery: Delivery, raw: Buffer, format: number): void {
    let admission: Admission;
    try {
      if (raw.length > this.limit) throw brokerErrors.tooLarge(raw.length, this.limit);
      const parsed: ParsedMessage[] = format === BATCH_FORMAT ? splitBatch(raw).map(parseMessage) : [parseMessage(raw)];
      admission = this.broker.send(this.target, parsed);
    } catch (err) {
      const error = isBrokerError(err)
        ? err.toAmqp()
        : { condition: 'amqp:decode-error', description: `Malformed message: ${(err as Error).message}` };
      rejectIncoming(delivery, error);
      return;
    }
    const store = this.broker.store;
    if (!store.durable) {
      admission.commit();
      acceptIncoming(delivery);
      return;
    }
    store.flush().then(
      () => {
        admission.commit();
        acceptIncoming(delivery);
      },
      (err: unknown) => {
        admission.abort();
        rejectIncoming(delivery, {
          condition: 'amqp:internal-error',
          description: `Store write failed: ${String(err)}`,
        });
      },
    );
  }
}
