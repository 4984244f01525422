/**
 * The outbox's defaults, in one place: the relay, a release, the webhook poster and the config resolver all read them
 * from here (`resolveOutboxConfig` documents the settings that override them).
 */
import type { HoldBackoff } from './holdMarker.js';

/** How long one webhook POST (or one send of a release) may take: `OUTBOX_WEBHOOK_TIMEOUT`, PT10S. */
export const WEBHOOK_TIMEOUT_DEFAULT_MS = 10_000;

/** Backoff of a hold's releases: `OUTBOX_HOLD_RETRY_FIRST` PT1M, doubling up to `OUTBOX_HOLD_RETRY_MAX` PT5M. */
export const HOLD_RETRY_DEFAULTS: Readonly<HoldBackoff> = Object.freeze({ firstMs: 60_000, maxMs: 300_000 });
