/**
 * Dead-letter reasons, exactly as operators, alerts and the CLI see them.
 * The first four are ours; the last two are set by the broker itself.
 */
export const DeadLetterReason = {
  SchemaValidationFailed: 'SchemaValidationFailed',
  IdempotencyKeyConflict: 'IdempotencyKeyConflict',
  SequenceConflict: 'SequenceConflict',
  InvalidTransition: 'InvalidTransition',
  MaxDeliveryCountExceeded: 'MaxDeliveryCountExceeded',
  TTLExpiredException: 'TTLExpiredException',
} as const;

export type DeadLetterReason = (typeof DeadLetterReason)[keyof typeof DeadLetterReason];

/** Service Bus keeps dead-letter descriptions short; longer text is cut to this many characters. */
export const MAX_DEAD_LETTER_DESCRIPTION = 1024;
