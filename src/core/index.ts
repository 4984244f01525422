/**
 * The pure core of Ledger Convoy: contracts, hashing, the order state machine, the entry records and parking decisions, the
 * splitter's plan, configuration and the ports adapters implement. No Azure SDK or Functions imports.
 */
export { DeadLetterReason } from './deadLetterReasons.js';
export { CoreErrorCode, StoreError } from './errors.js';
export { errorMessage } from './errorMessage.js';

export { MESSAGE_ID_HASH_DIGITS, readResubmitCount, resubmission, type Resubmission } from './hash.js';

export { normaliseBody } from './schemas/body.js';
export { type Entry, type EntryChange, type EntryType } from './entryTypes/registry.js';
export { foldOrderEvent } from './entryTypes/foldOrderEvent.js';

export { exceedsLedgerByteLimit, ledgerSchema, validateEntry, type Ledger } from './schemas/ledger.js';
export { LEDGER_MAX_ENTRIES, ORDER_MAX_TRANSACTIONS } from './schemas/limits.js';

export { OrderStatus, type Transaction } from './order/orderState.js';

export { type BusinessState, type OrderView } from './order/orderView.js';
export { runGapMonitor, type GapMonitorReport } from './order/gapMonitor.js';

export type { OrderDocument, RejectedRecord } from './documents/orderDocument.js';

export { rejectedDetails, type RejectedDetails, type RejectedEntryRecord } from './documents/entryRecord.js';

export type { Stored } from './ports/orderStore.js';
export { AlertName, CounterName } from './ports/telemetry.js';
export { ALL_EVENTS_SUBSCRIPTION, ORDER_EVENTS_TOPIC, QUEUE_NAMES, QueueName } from './queueNames.js';

export { type ProcessResult } from './processor/processResult.js';

export { planLedger } from './splitter/planLedger.js';
export { messageTraceparent } from './traceContext.js';

export {
  orderEventKey,
  orderEventSource,
  type OrderCloudEvent,
  type OrderEventData,
} from './outbox/orderCloudEvent.js';
export { resolveOutboxConfig, WEBHOOK_TIMEOUT_DEFAULT_MS, type OutboxConfig } from './outbox/outboxConfig.js';
export { type OutboundOrderEvent } from './outbox/outboxPorts.js';

export { OutboxTarget, type OutboxHold } from './documents/outboxHold.js';
export type { OutboxDiscardRecord } from './documents/outboxDiscardRecord.js';
export { outboxHoldId } from './documents/documentIds.js';
export { withoutSystemProperties } from './documents/systemProperties.js';
export { OutboxRelay, type RelayReport } from './outbox/outboxRelay.js';
export { releaseHold, type HoldReleaseReport } from './outbox/holdRelease.js';
export { retryDueHolds, type HoldRetryDeps, type HoldRetryReport } from './outbox/holdRelease.js';
export { discardHold, type HoldDiscardReport } from './outbox/holdDiscard.js';
export { heldRecords, holdView, type HoldView } from './outbox/holdMarker.js';

export { OutboxDeliveryError, OutboxErrorCode } from './outbox/outboxErrors.js';
export type { HoldWrite, OrderEventSender, OrderEventWebhook, OutboxHoldStore } from './outbox/outboxPorts.js';
