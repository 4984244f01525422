import type { DeadLetterReason } from '../deadLetterReasons.js';

/**
 * Settles the one message a handler was given. Adapters: the Functions host's settlement actions
 * (`@azure/functions-extensions-servicebus`) and the in-process host's SDK receiver.
 * Each message is settled exactly once; the core decides which of the three it is. Renewing its lock settles nothing.
 */
export interface MessageSettlement {
  complete(): Promise<void>;
  /** Hands the message back for redelivery (delivery count + 1). */
  abandon(): Promise<void>;
  deadLetter(reason: DeadLetterReason, description: string): Promise<void>;
  /**
   * Keeps the message locked for another lock duration (its session's lock, for a session's message) without
   * settling it: for a wait that may outlast the host's automatic renewal (`maxAutoLockRenewalDuration`, counted from
   * the session's accept). Throws when the lock is already lost.
   */
  renewLock(): Promise<void>;
}
