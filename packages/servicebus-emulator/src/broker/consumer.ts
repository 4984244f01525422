import type { BrokerError } from '../errors/brokerError.js';
import type { MessageLock, StoredMessage } from './storedMessage.js';
import type { TypedProps } from './wireMessage.js';

/** How a receiver settles: `peekLock` locks each message, `receiveAndDelete` removes it on delivery. */
export type ReceiveMode = 'peekLock' | 'receiveAndDelete';

/**
 * A receiving link as the engine sees it. The transport implements it over a rhea sender; the engine only
 * asks for credit and hands over messages, so it never touches AMQP frames.
 */
export interface Consumer {
  readonly id: string;
  readonly mode: ReceiveMode;
  /** Set once the consumer holds a session lock (session entities only). */
  sessionId: string | undefined;
  /** Messages the consumer can take right now. */
  credit(): number;
  /** Hands one message over; `lock` is set in peekLock mode. */
  deliver(message: StoredMessage, lock: MessageLock | undefined): void;
  /** Called when the consumer's session lock expired: the transport detaches with the error. */
  sessionLost(error: BrokerError): void;
}

/** How a locked message is settled. */
export type Settlement =
  | { kind: 'complete' }
  | { kind: 'abandon'; props?: TypedProps }
  | { kind: 'defer'; props?: TypedProps }
  | { kind: 'deadLetter'; reason?: string; description?: string; props?: TypedProps };
