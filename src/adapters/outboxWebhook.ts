/**
 * Posts order events to a webhook (`OUTBOX_WEBHOOK_URL`): a JSON POST of the event body with the outbox record
 * id as `Idempotency-Key`, so the receiver can dedupe a re-delivery, and the W3C `traceparent` header. Anything
 * but a 2xx answer, a network error or a timeout fails the attempt for that order.
 */
import { OutboxDeliveryError, OutboxErrorCode, type OrderEventWebhook, type OutboundOrderEvent } from '../core/index.js';
import { producerTraceparent } from './outboxTrace.js';

/** Options of {@link WebhookOrderEventPoster}. */
export interface WebhookPosterOptions {
  url: string;
  /** Longest time one POST may take. @default 10000 */
  timeoutMs?: number;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** {@link OrderEventWebhook} over `fetch`. */
export class WebhookOrderEventPoster implements OrderEventWebhook {
  private readonly fetch: typeof fetch;

  constructor(private readonly options: WebhookPosterOptions) {
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  async post(event: OutboundOrderEvent, signal: AbortSignal): Promise<void> {
    let status: number;
    try {
      status = await producerTraceparent('webhook POST', event.traceparent, async (traceparent) => {
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
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw new OutboxDeliveryError(OutboxErrorCode.TargetRejected, `webhook POST of ${event.messageId} failed: ${message}`, { cause: error });
    }
    if (status < 200 || status > 299) throw new OutboxDeliveryError(OutboxErrorCode.TargetRejected, `webhook answered HTTP ${status}`);
  }
}
