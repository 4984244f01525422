import { DedupWindow } from './dedupWindow.js';
import type { EntityLog } from './entityLog.js';

/** The settings duplicate detection reads; they may change (the management API's update). */
export interface DuplicateDetectionSettings {
  readonly requiresDuplicateDetection: boolean;
  readonly duplicateDetectionWindowMs: number;
}

/**
 * Duplicate detection of one queue or topic (`RequiresDuplicateDetection`): a message whose MessageId was accepted
 * within the window is accepted and dropped. An id counts only once its send is durable: it is logged with the
 * send's messages ({@link logWithSend}), remembered when the send is acknowledged ({@link remember}) and taken back
 * from the log when the write failed ({@link withdraw}), so a client's retry is neither lost nor taken for a repeat.
 */
export class DuplicateDetection {
  private readonly window: DedupWindow;

  constructor(
    private settings: DuplicateDetectionSettings,
    private readonly log: EntityLog,
  ) {
    this.window = new DedupWindow(settings.duplicateDetectionWindowMs);
  }

  /** Whether detection is on for the entity. */
  get enabled(): boolean {
    return this.settings.requiresDuplicateDetection;
  }

  /** The window in ms. */
  get windowMs(): number {
    return this.settings.duplicateDetectionWindowMs;
  }

  /** Applies changed settings; ids already remembered stay for the new window. */
  reconfigure(settings: DuplicateDetectionSettings): void {
    this.settings = settings;
    this.window.windowMs = settings.duplicateDetectionWindowMs;
  }

  /** Whether `messageId` was accepted inside the window (always false when detection is off). */
  isDuplicate(messageId: string, now: number): boolean {
    return this.enabled && this.window.seen(messageId, now);
  }

  /**
   * Writes `messageId` to the log with its send's messages, so the write that makes the send durable carries both:
   * after a restart a message that survived is never accepted a second time.
   */
  logWithSend(messageId: string, now: number): void {
    if (this.enabled) this.log.duplicateIdSeen(messageId, now);
  }

  /** Takes back a {@link logWithSend} of a send whose write failed. */
  withdraw(messageId: string, at: number): void {
    if (this.enabled) this.log.duplicateIdWithdrawn(messageId, at);
  }

  /** Counts `messageId` as accepted: only once its send is acknowledged. */
  remember(messageId: string, now: number): void {
    if (this.enabled) this.window.add(messageId, now);
  }

  /** Replays an entry of the log (the caller has checked it is still inside the window). */
  restore(messageId: string, at: number): void {
    this.window.add(messageId, at);
  }
}
