/**
 * Delivers order events to a webhook (`OUTBOX_WEBHOOK_URL`): a JSON POST of the event body with the outbox record
 * id as `Idempotency-Key`, so the receiver can dedupe a re-delivery, and the W3C `traceparent` header. Anything
 * but a 2xx answer, a network error or a timeout fails the attempt.
 */
import type { DeliveryReceipt, OrderEventTarget, OutboundOrderEvent } from '../core/index.js';
import { producerTraceparent } from './outboxTrace.js';

/** Name of this target in outbox records. */
export const WEBHOOK_TARGET = 'webhook';

/** Options of {@link WebhookOrderEventTarget}. */
export interface WebhookTargetOptions {
  url: string;
  /** Longest time one POST may take. @default 10000 */
  timeoutMs?: number;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** A webhook answered something other than 2xx. */
export class WebhookDeliveryError extends Error {
  override readonly name = 'WebhookDeliveryError';
  readonly code = 'WebhookRejected';

  constructor(readonly status: number) {
    super(`webhook answered HTTP ${status}`);
  }
}

/** {@link OrderEventTarget} that POSTs to a webhook. */
export class WebhookOrderEventTarget implements OrderEventTarget {
  readonly name = WEBHOOK_TARGET;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: WebhookTargetOptions) {
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  async deliver(event: OutboundOrderEvent, signal: AbortSignal): Promise<DeliveryReceipt> {
    const status = await producerTraceparent(`${WEBHOOK_TARGET} POST`, event.traceparent, async (traceparent) => {
      const response = await this.fetch(this.options.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'idempotency-key': event.messageId,
          ...(traceparent !== undefined && { traceparent }),
        },
        body: JSON.stringify(event.body),
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.options.timeoutMs ?? 10_000)]),
      });
      // Drain the body so the connection can be reused.
      await response.arrayBuffer().catch(() => undefined);
      return response.status;
    });
    if (status < 200 || status > 299) throw new WebhookDeliveryError(status);
    return { target: this.name, detail: `HTTP ${status}` };
  }
}
