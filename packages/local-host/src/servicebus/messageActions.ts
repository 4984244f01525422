import type { DeadLetterOptions, ServiceBusReceivedMessage } from '@azure/service-bus';
import { decodePropertiesToModify } from './propertiesToModify.js';
import type { SettlementRequest } from './triggerProtocol.js';

/** How a message left the handler. */
export type SettlementOutcome = 'completed' | 'abandoned' | 'deadLettered' | 'deferred';

/** A dead-letter reason or description as the extension's callers pass it: plain, or a protobuf `StringValue`. */
type StringOrStringValue = string | { value: string } | null | undefined;

/** A protobuf `Timestamp` as the extension's gRPC client decodes it (`longs: String`). */
interface ProtobufTimestamp {
  seconds: string;
  nanos: number;
}

/**
 * The settlement actions an `sdkBinding` handler receives, with the signatures of
 * `@azure/functions-extensions-servicebus` 0.2.0-preview, forwarded here to the trigger thread instead of over gRPC.
 * @internal
 */
export interface LocalServiceBusMessageActions {
  complete(message: ServiceBusReceivedMessage): Promise<void>;
  abandon(message: ServiceBusReceivedMessage, propertiesToModify?: Uint8Array): Promise<void>;
  deadletter(
    message: ServiceBusReceivedMessage,
    propertiesToModify?: Uint8Array,
    deadletterReason?: StringOrStringValue,
    deadletterErrorDescription?: StringOrStringValue,
  ): Promise<void>;
  defer(message: ServiceBusReceivedMessage, propertiesToModify?: Uint8Array): Promise<void>;
  renewMessageLock(message: ServiceBusReceivedMessage): Promise<void>;
  setSessionState(sessionId: string, sessionState: Uint8Array): Promise<void>;
  releaseSession(sessionId: string): Promise<void>;
  renewSessionLock(sessionId: string): Promise<ProtobufTimestamp>;
}

/** gRPC status codes the settlement service answers with (`@grpc/grpc-js` `status`). @internal */
export const SETTLEMENT_STATUS = { FAILED_PRECONDITION: 9 } as const;

/**
 * What an action made after its invocation ended fails with: the error the extension's gRPC client rejects with
 * when the host's settlement service no longer knows the lock token or session (a gRPC `ServiceError`: `code`,
 * `details`, and the message `9 FAILED_PRECONDITION: <details>`).
 * @internal
 */
export class SettlementServiceError extends Error {
  constructor(
    readonly code: (typeof SETTLEMENT_STATUS)[keyof typeof SETTLEMENT_STATUS],
    readonly details: string,
  ) {
    super(`${code} FAILED_PRECONDITION: ${details}`);
    this.name = 'SettlementServiceError';
  }
}

/** The session a message came from, for the session actions. */
export interface SessionControl {
  readonly sessionId: string;
  /** Ask the session's slot to release the session once the current message is done. */
  requestRelease(): void;
}

/**
 * Executes one settlement on the receiver that holds the message (in the trigger thread, in the order of its
 * receiver's settlement queue, settlementQueue.ts); resolves to the session's new lock expiry for `renewSessionLock`.
 */
export type Settle = (request: SettlementRequest) => Promise<Date | undefined>;

/** Options of {@link createInvocationSettlement}. */
export interface InvocationSettlementOptions {
  settle: Settle;
  /** The message as the function receives it (its lock token names it). */
  message: ServiceBusReceivedMessage;
  session?: SessionControl;
}

/** Settlement of one invocation's message: the handler's actions plus the host's own complete/abandon. */
export interface InvocationSettlement {
  readonly actions: LocalServiceBusMessageActions;
  /** The outcome once settled; undefined while unsettled. */
  outcome(): SettlementOutcome | undefined;
  /** The dead-letter reason, when dead-lettered. */
  deadLetterReason(): string | undefined;
  complete(): Promise<void>;
  abandon(): Promise<void>;
  /**
   * The invocation is over (the handler returned and the host settled what it settles): from now on every action
   * fails, as on the real host, which forgets the lock token and the session when the function returns.
   */
  end(): void;
}

/**
 * Creates the settlement of one message. Every settlement is executed by the trigger thread, on the receiver that
 * holds the message and through its settlement queue; a message settles once (a second attempt throws, as the SDK
 * does); actions refuse a message of another invocation, since its lock token means nothing to this receiver; and
 * after {@link InvocationSettlement.end} every action fails with {@link SettlementServiceError}, as on the real host:
 * the WebJobs extension's listener removes the lock token (`ActionsCache`) and the session (`SessionActionsCache`)
 * in the `finally` after the function returned (azure-sdk-for-net
 * `Microsoft.Azure.WebJobs.Extensions.ServiceBus/src/Listeners/ServiceBusListener.cs`, `ProcessMessageAsync` / `ProcessSessionMessageAsync`), and its gRPC `SettlementService` answers an unknown one
 * with `FailedPrecondition` "LockToken … not found." / "SessionId … not found." (`src/Grpc/SettlementService.cs`).
 */
export function createInvocationSettlement(options: InvocationSettlementOptions): InvocationSettlement {
  const { settle: execute, message, session } = options;
  let outcome: SettlementOutcome | undefined;
  let pending: SettlementOutcome | undefined;
  let reason: string | undefined;
  let ended = false;

  const own = (candidate: ServiceBusReceivedMessage, action: string): void => {
    if (ended)
      throw new SettlementServiceError(
        SETTLEMENT_STATUS.FAILED_PRECONDITION,
        `LockToken ${String(candidate?.lockToken)} not found.`,
      );
    if (candidate?.lockToken !== message.lockToken) {
      throw new TypeError(`${action}: the message is not this invocation's message (lock token mismatch)`);
    }
  };

  const settle = async (next: SettlementOutcome, request: () => SettlementRequest): Promise<void> => {
    if (ended)
      throw new SettlementServiceError(
        SETTLEMENT_STATUS.FAILED_PRECONDITION,
        `LockToken ${String(message.lockToken)} not found.`,
      );
    const previous = outcome ?? pending;
    if (previous) throw new Error(`Cannot ${next}: message ${String(message.messageId)} is already ${previous}`);
    pending = next;
    try {
      await execute(request());
      outcome = next;
    } finally {
      pending = undefined;
    }
  };

  const heldSession = (sessionId: string, action: string): SessionControl => {
    if (ended)
      throw new SettlementServiceError(SETTLEMENT_STATUS.FAILED_PRECONDITION, `SessionId ${sessionId} not found.`);
    if (!session) throw new Error(`${action}: the trigger is not session-enabled`);
    if (session.sessionId !== sessionId)
      throw new Error(`${action}: session "${sessionId}" is not held by this invocation`);
    return session;
  };

  const actions: LocalServiceBusMessageActions = {
    complete: (m) =>
      settle('completed', () => {
        own(m, 'complete');
        return { action: 'complete' };
      }),
    abandon: (m, props) =>
      settle('abandoned', () => {
        own(m, 'abandon');
        return { action: 'abandon', propertiesToModify: decodePropertiesToModify(props) };
      }),
    deadletter: async (m, props, deadletterReason, description) => {
      own(m, 'deadletter');
      reason = unwrap(deadletterReason);
      type Details = DeadLetterOptions & Record<string, string | number | boolean | Date | null>;
      const details = { ...decodePropertiesToModify(props) } as Details;
      if (reason !== undefined) details.deadLetterReason = reason;
      const text = unwrap(description);
      if (text !== undefined) details.deadLetterErrorDescription = text;
      return settle('deadLettered', () => ({ action: 'deadLetter', details }));
    },
    defer: (m, props) =>
      settle('deferred', () => {
        own(m, 'defer');
        return { action: 'defer', propertiesToModify: decodePropertiesToModify(props) };
      }),
    renewMessageLock: async (m) => {
      own(m, 'renewMessageLock');
      // Session messages are locked through their session, as on the real host.
      if (session)
        throw new Error('renewMessageLock: messages of a session are locked by the session; use renewSessionLock');
      await execute({ action: 'renewMessageLock' });
    },
    setSessionState: async (sessionId, state) => {
      heldSession(sessionId, 'setSessionState');
      await execute({ action: 'setSessionState', state });
    },
    releaseSession: async (sessionId) => heldSession(sessionId, 'releaseSession').requestRelease(),
    renewSessionLock: async (sessionId) => {
      heldSession(sessionId, 'renewSessionLock');
      const lockedUntil = (await execute({ action: 'renewSessionLock' })) as Date;
      const ms = lockedUntil.getTime();
      return { seconds: String(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1e6 };
    },
  };

  return {
    actions,
    outcome: () => outcome,
    deadLetterReason: () => reason,
    complete: () => actions.complete(message),
    abandon: () => actions.abandon(message),
    end: () => {
      ended = true;
    },
  };
}

function unwrap(value: StringOrStringValue): string | undefined {
  if (value === null || value === undefined) return undefined;
  return typeof value === 'string' ? value : value.value;
}
