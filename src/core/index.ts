/**
 * The pure core of Ledger Convoy: contracts, hashing, the order state machine, the inbox/parking decisions, the
 * splitter's plan, configuration and the ports adapters implement. No Azure SDK or Functions imports.
 */
export { DeadLetterReason, MAX_DEAD_LETTER_DESCRIPTION } from './deadLetterReasons.js';
export {
  ConfigError,
  CoreErrorCode,
  StoreError,
  TransitionError,
  ValidationError,
  errorCode,
  isRetryableStoreError,
  type StoreErrorCode,
  type StoreErrorDetails,
  type ValidationIssue,
} from './errors.js';
export {
  CORE_DEFAULTS,
  IN_FLIGHT_REQUEST_ALLOWANCE_MS,
  deliveryWindowOf,
  inboxTtlSeconds,
  resolveCoreConfig,
  type CoreConfig,
  type QueueDeliveryWindow,
  type QueueEntityProperties,
  type SettingsSource,
} from './config.js';
export { parseIsoDuration } from './duration.js';
export { MESSAGE_ID_HASH_DIGITS, entryMessageId, readResubmitCount, requestHash, resubmission, type Resubmission } from './hash.js';

export { bodyByteLength, normaliseBody, type NormalisedBody } from './schemas/body.js';
export {
  EntryType,
  amountSchema,
  entryIdSchema,
  entrySchema,
  orderCreatedSchema,
  orderDeletedSchema,
  orderIdSchema,
  transactionAddedSchema,
  transactionAmendedSchema,
  type Entry,
} from './schemas/entry.js';
export { formatPath, toValidationIssues } from './schemas/issues.js';
export { exceedsLedgerByteLimit, ledgerSchema, validateEntry, validateLedger, type Ledger, type Validated } from './schemas/ledger.js';
export {
  CURRENCY_PATTERN,
  AMENDED_TRANSACTION_ID_MAX_LENGTH,
  ID_MAX_BYTES,
  ENTRY_ID_MAX_LENGTH,
  LEDGER_MAX_BYTES,
  LEDGER_MAX_ENTRIES,
  LEDGER_MIN_ENTRIES,
  ORDER_ID_MAX_LENGTH,
  ORDER_MAX_PARKED,
  ORDER_MAX_TRANSACTIONS,
} from './schemas/limits.js';

export { OrderStatus, initialOrderState, type OrderState, type Transaction } from './order/orderState.js';
export { applyTransition, type TransitionResult } from './order/transition.js';
export { businessState, orderView, type BusinessState, type OrderView } from './order/orderView.js';
export { gapAlertDue, runGapMonitor, staleGap, type GapGauges, type GapMonitorDeps, type GapMonitorReport, type StaleGap } from './order/gapMonitor.js';
export { nextDueSequence, orderNeedsFollowUp } from './order/followUpCheck.js';

export { ORDER_DOCUMENT_ID, appliedEntryId, inboxRecordId, outboxRecordId, parkedEntryId, rejectedEntryId } from './documents/documentIds.js';
export { InboxStatus, inboxRecord, type InboxRecord, type InboxRecordInput } from './documents/inboxRecord.js';
export type { OrderDocument, ParkedRecord, RejectedRecord } from './documents/orderDocument.js';
export type { AppliedEntryDocument } from './documents/appliedEntryDocument.js';
export type { GapAlertMark, ParkedEntryDocument } from './documents/parkedEntryDocument.js';
export { rejectedDetails, type RejectedDetails, type RejectedEntryDocument } from './documents/rejectedEntryDocument.js';
export type { AnyOutboxRecord, EarlierOutboxRecord, OutboxRecord } from './documents/outboxRecord.js';

export { systemClock, timerSleep, type Clock, type Sleep } from './ports/clock.js';
export type { MessageSettlement } from './ports/messageSettlement.js';
export type { CommitOutcome, GapStore, KeySeen, OrderContainerDocument, OrderStore, OrderWrite, Stored } from './ports/orderStore.js';
export {
  AlertName,
  CounterName,
  silentTelemetry,
  type AlertFields,
  type LogLevel,
  type Telemetry,
} from './ports/telemetry.js';

export { OrderCache } from './processor/orderCache.js';
export { OrderProcessor } from './processor/orderProcessor.js';
export {
  ProcessOutcome,
  type DrainReport,
  type OrderProcessorDeps,
  type OrderProcessorOptions,
  type ProcessContext,
  type ProcessResult,
} from './processor/processResult.js';
export type { ReceivedOrderMessage } from './processor/checkMessage.js';
export { decide, type CheckedEntry, type Decision, type Facts, type Rule } from './processor/decide.js';
export { backoffDelay, retry, type BackoffOptions, type RetryOptions } from './retry.js';

export { planEntryMessage, planLedger, type LedgerPlan, type PlannedEntryMessage } from './splitter/planLedger.js';
export { TRACEPARENT_PROPERTIES, isTraceparent, messageTraceparent } from './traceContext.js';

export { orderEventMessage, type OrderEventBody, type OrderEventMessage } from './outbox/orderEvent.js';
export {
  CLOUDEVENTS_JSON,
  ORDER_EVENT_TYPE,
  orderCloudEvent,
  orderEventKey,
  orderEventSource,
  type OrderCloudEvent,
  type OrderEventData,
} from './outbox/orderCloudEvent.js';
export { OUTBOX_DEFAULTS, resolveOutboxConfig, type OutboxConfig } from './outbox/outboxConfig.js';
export { silentOutboxObserver, type OutboundOrderEvent, type OutboxObserver } from './outbox/outboxPorts.js';

export { OutboxTarget, currentHold, type OutboxHold, type StoredOutboxHold } from './documents/outboxHold.js';
export type { OutboxHeldRecord } from './documents/outboxHeldRecord.js';
export type { OutboxDiscardRecord } from './documents/outboxDiscardRecord.js';
export { outboxHoldId } from './documents/documentIds.js';
export { withoutSystemProperties } from './documents/systemProperties.js';
export { OutboxRelay, outboundEvent, type OutboxRelayDeps, type OutboxRelayOptions, type RelayReport } from './outbox/outboxRelay.js';
export { releaseHold, type HoldReleaseDeps, type HoldReleaseReport } from './outbox/holdRelease.js';
export { discardHold, type HoldDiscardDeps, type HoldDiscardReport } from './outbox/holdDiscard.js';
export { retryDueHolds, type HoldRetryDeps, type HoldRetryReport } from './outbox/holdRetry.js';
export { WebhookWake } from './outbox/holdWake.js';
export { holdView, type HoldBackoff, type HoldView } from './outbox/holdMarker.js';
export { planRelayBatch, type OrderRelayWork, type RelayBatch } from './outbox/relayBatch.js';
export { OutboxBatchError, OutboxDeliveryError, OutboxErrorCode, isTransportFailure } from './outbox/outboxErrors.js';
export type { HoldAppendResult, HoldWriteLost, OrderEventSender, OrderEventWebhook, OutboxHoldStore } from './outbox/outboxPorts.js';
