/**
 * The shapes a generated run is made of: the messages `send` sends, in order, and the dead letters they should
 * cause. Apart from the generator so that the poison planner can use them without importing it.
 */
import type { DeadLetterReason, Ledger } from 'ledger-convoy/core';

/** The kinds of poison `send --poison` produces, in turn. */
export const PoisonKind = {
  /** Bytes that are not JSON, on `orders`: the sequence can't be read, so it holds nothing (rule 10). */
  NotJson: 'notJson',
  /** JSON breaking the entry schema (unreadable sequence, float amount, unknown property), on `orders`. */
  BadSchema: 'badSchema',
  /** A well-formed entry whose `orderId` is not its session's, on `orders`: it holds nothing either. */
  WrongSession: 'wrongSession',
  /** A ledger repeating an `entryId` (rule 9), on `ledger`: dead-lettered whole, nothing fanned out. */
  BadLedger: 'badLedger',
} as const;
/** One of {@link PoisonKind}. */
export type PoisonKind = (typeof PoisonKind)[keyof typeof PoisonKind];

/** What one dead letter a run should produce looks like. */
export interface ExpectedDeadLetter {
  queue: 'orders' | 'ledger';
  /** The `entryId` (orders; the message id when the body has none) or the ledger's message id. */
  id: string;
  reason: DeadLetterReason;
  /** Why the generator expects it (for the summary). */
  cause: 'conflict' | PoisonKind;
}

/** One message to send, in order. */
export type PlannedSend =
  | { kind: 'ledger'; ledger: Ledger; resend: boolean }
  | {
      kind: 'poison';
      poison: PoisonKind;
      queue: 'orders' | 'ledger';
      messageId: string;
      sessionId: string | undefined;
      /** Bytes for a non-JSON body, else the JSON value. */
      body: Uint8Array | Record<string, unknown>;
    };
