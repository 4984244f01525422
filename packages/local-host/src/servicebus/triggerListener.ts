/** A running Service Bus trigger. */
export interface TriggerListener {
  /** Stops taking messages, lets in-flight handlers finish and settle, then closes the receivers. */
  close(): Promise<void>;
}
